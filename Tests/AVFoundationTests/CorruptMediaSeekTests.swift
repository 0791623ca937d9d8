import Foundation
import TestSupport
import XCTest

@testable import AVFoundation

/// Exact seeks in damaged copies of h264_aac.mp4 (made at test time by `MediaMutator` from a seed): every seek
/// completes exactly once, and a seek that completes `true` shows a picture the playhead has reached (the nearest one
/// that could be decoded when the pictures at the target could not).
///
/// `OAVF_MUTANT_SEEDS=1-300` checks a range of seeds instead of the regression list (a search for new failures;
/// `3-3000/6` takes every sixth seed, one recipe), and `OAVF_MUTANT_KEEP=folder` keeps the files that fail.
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

    /// What happened to one mutant.
    struct Outcome: CustomStringConvertible {
        var mutant: String
        var failure: String?
        var description: String { "\(mutant): \(failure ?? "ok")" }
    }

    private var seeds: [UInt64] {
        guard let spec = ProcessInfo.processInfo.environment["OAVF_MUTANT_SEEDS"], !spec.isEmpty else {
            return Self.regressionSeeds
        }
        // "1-300", "5,9,12", or "3-3000/6" (every sixth seed: one recipe only).
        return spec.split(separator: ",").flatMap { part -> [UInt64] in
            let (range, step) = part.split(separator: "/").map(String.init).splitStep()
            let bounds = range.split(separator: "-").compactMap { UInt64($0) }
            if bounds.count == 2 { return Array(stride(from: bounds[0], through: bounds[1], by: step)) }
            return bounds
        }
    }

    func test_exactSeekInDamagedFiles_completesOnce_andShowsAPictureTheTimeHasReached() throws {
        let original = try Data(contentsOf: try fixture(.h264AAC))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oavf-mutants-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        var failures: [Outcome] = []
        for seed in seeds {
            let mutant = MediaMutator.mutate(original, seed: seed)
            let url = folder.appendingPathComponent("mutant-\(seed).mp4")
            try mutant.data.write(to: url)
            let outcome = seekOnce(in: url, mutant: mutant.description)
            if outcome.failure != nil {
                failures.append(outcome)
                // OAVF_MUTANT_KEEP=folder keeps the failing files for a closer look.
                if let keep = ProcessInfo.processInfo.environment["OAVF_MUTANT_KEEP"] {
                    try? mutant.data.write(to: URL(fileURLWithPath: keep).appendingPathComponent("mutant-\(seed).mp4"))
                }
            }
            try? FileManager.default.removeItem(at: url)
        }
        XCTAssertEqual(failures.map(\.description), [], "\(failures.count) of \(seeds.count) mutants")
    }

    /// Opens `url` on a manual virtual clock and seeks exactly to 3.3 s once the item is ready; returns what went
    /// wrong, if anything.
    private func seekOnce(in url: URL, mutant: String) -> Outcome {
        let v = VirtualPlayer(mode: .manual, captureAudio: false)
        defer { v.player.replaceCurrentItem(with: nil) }
        let item = AVPlayerItem(url: url)
        v.player.replaceCurrentItem(with: item)
        // Generous bounds: a failure here is a hang, whatever the machine's load.
        let settled = wait(seconds: 30) { item.status != .unknown }
        guard settled else { return Outcome(mutant: mutant, failure: "status stayed unknown") }
        guard item.status == .readyToPlay else { return Outcome(mutant: mutant) }  // failed to open: fine
        let calls = LockedBox<[Bool]>([])
        let shownBefore = v.frames.entries.count
        let target = CMTime(value: 33, timescale: 10)
        item.seek(to: target, toleranceBefore: .zero, toleranceAfter: .zero) { ok in calls.withLock { $0.append(ok) } }
        guard wait(seconds: 30, { !calls.withLock { $0 }.isEmpty }) else {
            return Outcome(mutant: mutant, failure: "the seek never completed")
        }
        // A second call would come right after the first (the engine completes on its own thread): give it a
        // chance by a round trip through the engine (a pause is a command it acknowledges).
        v.player.pause()
        spinMainRunLoop(0.02)
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

    /// Runs the main run loop until `condition` holds or `seconds` pass; whether it holds.
    private func wait(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            RunLoop.main.run(until: Date().addingTimeInterval(0.005))
        }
        return true
    }
}

extension [String] {
    /// `["3-3000", "6"]` → `("3-3000", 6)`; `["1-9"]` → `("1-9", 1)`.
    fileprivate func splitStep() -> (String, UInt64.Stride) {
        (first ?? "", count > 1 ? UInt64.Stride(self[1]) ?? 1 : 1)
    }
}
