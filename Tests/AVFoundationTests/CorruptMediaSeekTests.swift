import Foundation
import OAVFLocking
import TestSupport
import XCTest

@testable import AVFoundation

/// Exact seeks in damaged copies of h264_aac.mp4 (made at test time by `MediaMutator` from a seed): every seek
/// completes exactly once, and a seek that completes `true` shows a picture the playhead has reached (the nearest one
/// that could be decoded when the pictures at the target could not).
///
/// `OAVF_MUTANT_SEEDS=1-300` checks a range of seeds instead of the regression list (a search for new failures;
/// `3-3000/6` takes every sixth seed, one recipe), `OAVF_MUTANT_FIXTURE=hevc.mkv` damages that fixture instead of
/// h264_aac.mp4, and `OAVF_MUTANT_KEEP=folder` keeps the files that fail.
final class CorruptMediaSeekTests: XCTestCase {
    /// Seeds whose mutants once failed:
    /// - 14, 44, 56, 86, 97, 115 (zeroed or noisy runs over the pictures around 3.3 s): the seek completed `true` and
    ///   showed the next picture that could be decoded (3.43 … 5.27 s) while the playhead stayed on 3.3 s, so a video
    ///   output had no picture for the current time and `avplay frame --at 3.3 --exact` waited until it gave up;
    /// - 1227 (bits flipped in the `moov`: the video's samples after the target cannot be read): the seek completed
    ///   `true` with no picture, so a frame grab waited for one; it now completes `false`;
    /// - 1665 (bits flipped in the `moov`: the pictures after 3.3 s are stamped 8741 s): the picture was shown while
    ///   the playhead stayed on the target;
    /// - 117 and 393 (bits flipped in the `moov`): a read that failed after preparation took the session's lock twice
    ///   and crashed the demux thread;
    /// - 3249 (bits flipped in the `moov`: the seek's keyframe lies 1/15360 s after the target, nothing before it in
    ///   the new serial): the seek kept the target's time while showing that later picture.
    static let regressionSeeds: [UInt64] = [14, 44, 56, 86, 97, 115, 1227, 1665, 117, 393, 3249]

    /// Seeds whose mutants of the Matroska and WebM fixtures once failed (searched with `OAVF_MUTANT_FIXTURE`): cut or
    /// zeroed after the first pictures, the seek completed `true` with no picture, since these streams state no
    /// duration of their own and nothing told that the video should go on past the target (the container's duration
    /// now does); 65 is cut before the first cluster, so no start time either. In the 2 s `odd_321x241.webm`, 1, 2
    /// and 5 (damaged after 1.1 s) completed `true` with no picture while a second was the margin before the stated end
    /// (now a tenth of a shorter video).
    static let otherRegressionSeeds: [Fixture: [UInt64]] = [
        .hevcMKV: [2, 8, 65], .vp9OpusWebM: [2, 11], .odd321x241: [1, 2, 5],
    ]

    /// What happened to one mutant.
    struct Outcome: CustomStringConvertible {
        var mutant: String
        var failure: String?
        var description: String { "\(mutant): \(failure ?? "ok")" }
    }

    /// The fixture to damage and the seeds: `OAVF_MUTANT_FIXTURE` and `OAVF_MUTANT_SEEDS`, else each fixture's
    /// regression seeds.
    private var searches: [(Fixture, [UInt64])] {
        let named = ProcessInfo.processInfo.environment["OAVF_MUTANT_FIXTURE"].flatMap(Fixture.init(rawValue:))
        guard let spec = ProcessInfo.processInfo.environment["OAVF_MUTANT_SEEDS"], !spec.isEmpty else {
            if let named { return [(named, Self.otherRegressionSeeds[named] ?? Self.regressionSeeds)] }
            return [(.h264AAC, Self.regressionSeeds)]
                + Self.otherRegressionSeeds.sorted { $0.key.rawValue < $1.key.rawValue }.map { ($0.key, $0.value) }
        }
        // "1-300", "5,9,12", or "3-3000/6" (every sixth seed: one recipe only).
        let seeds = spec.split(separator: ",").flatMap { part -> [UInt64] in
            let (range, step) = part.split(separator: "/").map(String.init).splitStep()
            let bounds = range.split(separator: "-").compactMap { UInt64($0) }
            if bounds.count == 2 { return Array(stride(from: bounds[0], through: bounds[1], by: step)) }
            return bounds
        }
        return [(named ?? .h264AAC, seeds)]
    }

    func test_exactSeekInDamagedFiles_completesOnce_andShowsAPictureTheTimeHasReached() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oavf-mutants-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        var failures: [Outcome] = []
        var count = 0
        for (source, seeds) in searches {
            try search(source, seeds: seeds, in: folder, failures: &failures)
            count += seeds.count
        }
        XCTAssertEqual(failures.map(\.description), [], "\(failures.count) of \(count) mutants")
    }

    /// Seeks once in the mutant of `source` made from each seed; adds what failed to `failures`.
    private func search(_ source: Fixture, seeds: [UInt64], in folder: URL, failures: inout [Outcome]) throws {
        let original = try Data(contentsOf: try fixture(source))
        // 3.3 s in the 10 s reference file; past the middle of a shorter one.
        let target = CMTime(seconds: min(3.3, (source.facts.duration ?? 10) * 0.55), preferredTimescale: 600)
        for seed in seeds {
            let mutant = MediaMutator.mutate(original, seed: seed)
            let url = folder.appendingPathComponent("mutant-\(seed).\(source.rawValue.split(separator: ".").last!)")
            try mutant.data.write(to: url)
            let outcome = seekOnce(in: url, mutant: "\(source.rawValue) \(mutant.description)", target: target)
            if outcome.failure != nil {
                failures.append(outcome)
                // OAVF_MUTANT_KEEP=folder keeps the failing files for a closer look.
                if let keep = ProcessInfo.processInfo.environment["OAVF_MUTANT_KEEP"] {
                    try? mutant.data.write(to: URL(fileURLWithPath: keep).appendingPathComponent(url.lastPathComponent))
                }
            }
            try? FileManager.default.removeItem(at: url)
        }
    }

    /// Opens `url` on a manual virtual clock and seeks exactly to `target` once the item is ready; returns what went
    /// wrong, if anything.
    private func seekOnce(in url: URL, mutant: String, target: CMTime) -> Outcome {
        let v = VirtualPlayer(mode: .manual, captureAudio: false)
        defer { v.player.replaceCurrentItem(with: nil) }
        let item = AVPlayerItem(url: url)
        v.player.replaceCurrentItem(with: item)
        // Generous bounds: a failure here is a hang, whatever the machine's load.
        let settled = Poll.runLoop { item.status != .unknown }
        guard settled else { return Outcome(mutant: mutant, failure: "status stayed unknown") }
        guard item.status == .readyToPlay else { return Outcome(mutant: mutant) }  // failed to open: fine
        let calls = Locked<[Bool]>([])
        let shownBefore = v.frames.entries.count
        item.seek(to: target, toleranceBefore: .zero, toleranceAfter: .zero) { ok in calls.withLock { $0.append(ok) } }
        guard Poll.runLoop(until: { !calls.withLock { $0 }.isEmpty }) else {
            return Outcome(mutant: mutant, failure: "the seek never completed")
        }
        // A second call would come right after the first (the engine completes on its own thread): a round trip
        // through the engine gives it its chance.
        settle(v.player)
        let results = calls.withLock { $0 }
        guard results.count == 1 else {
            return Outcome(mutant: mutant, failure: "completed \(results.count) times: \(results)")
        }
        guard results[0] else { return Outcome(mutant: mutant) }  // `false`: allowed
        let now = item.currentTime()
        let shown = v.frames.entries.dropFirst(shownBefore)
        guard let picture = shown.last else {
            // `true` promises the picture at the playhead (the target lies well inside the 10 s file) when the item
            // shows video at all (a damaged `moov` can leave the video track without samples or codec).
            if shownBefore == 0 { return Outcome(mutant: mutant) }
            return Outcome(mutant: mutant, failure: "completed true without a picture")
        }
        if picture.time > now {
            return Outcome(
                mutant: mutant,
                failure: "shows the picture of \(picture.time.seconds) s while the time is \(now.seconds) s")
        }
        return Outcome(mutant: mutant)
    }

}

extension [String] {
    /// `["3-3000", "6"]` → `("3-3000", 6)`; `["1-9"]` → `("1-9", 1)`.
    fileprivate func splitStep() -> (String, UInt64.Stride) {
        (first ?? "", count > 1 ? UInt64.Stride(self[1]) ?? 1 : 1)
    }
}
