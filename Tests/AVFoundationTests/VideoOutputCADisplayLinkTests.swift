import Foundation
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// The pull contract as an app drives it: a `CADisplayLink` on the test thread's run loop asks
/// `itemTime(forHostTime: link.targetTimestamp)`, `hasNewPixelBuffer(forItemTime:)` and
/// `copyPixelBuffer(forItemTime:itemTimeForDisplay:)` through a real-time playback of 25 fps video with sound, at
/// 30 Hz and at 60 Hz, on SDL's `dummy` and `disk` audio drivers. Every picture must be pulled once, in order (its
/// index read from its pixels). Counted, not timed: a picture may be missed only when the engine dropped it as late,
/// or when the run loop was so late that the link skipped the ticks that would have asked for it.
final class VideoOutputCADisplayLinkTests: XCTestCase {
    /// One callback: the tick's host times, the item time asked, and the picture pulled (its index), if any.
    private struct Pull {
        var timestamp: Double
        var targetTimestamp: Double
        var asked: CMTime
        var index: Int??
        var shown: CMTime
        /// When the callback ran (host nanoseconds).
        var calledAt: UInt64
    }

    func test_30HzAnd60HzLinks_pullEveryPictureOnceInOrder_dummyAudio() throws {
        setenv("SDL_AUDIODRIVER", "dummy", 1)
        defer { unsetenv("SDL_AUDIODRIVER") }
        for rate in [30, 60] { try pullEveryPicture(linkRate: rate, driver: "dummy") }
    }

    func test_30HzAnd60HzLinks_pullEveryPictureOnceInOrder_diskAudio() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("oavf-link-disk-\(getpid()).raw")
        setenv("SDL_AUDIODRIVER", "disk", 1)
        setenv("SDL_DISKAUDIOFILE", file.path, 1)
        defer {
            unsetenv("SDL_AUDIODRIVER")
            unsetenv("SDL_DISKAUDIOFILE")
            try? FileManager.default.removeItem(at: file)
        }
        for rate in [30, 60] { try pullEveryPicture(linkRate: rate, driver: "disk") }
    }

    private func pullEveryPicture(linkRate: Int, driver: String) throws {
        let player = AVPlayer()
        let item = AVPlayerItem(url: try fixture(.video25AAC))
        let output = AVPlayerItemVideoOutput(pixelBufferAttributes: nil)
        output.store.recordArrivals()
        item.add(output)
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }

        var pulls: [Pull] = []
        let link = CADisplayLink(oavfHandler: { link in
            let t = output.itemTime(forHostTime: link.targetTimestamp)
            var pull = Pull(
                timestamp: link.timestamp, targetTimestamp: link.targetTimestamp, asked: t, index: nil,
                shown: .invalid, calledAt: CVGetCurrentHostTime())
            if output.hasNewPixelBuffer(forItemTime: t) {
                var shown = CMTime.invalid
                let buffer = output.copyPixelBuffer(forItemTime: t, itemTimeForDisplay: &shown)
                pull.index = .some(buffer.flatMap(frameIndex(of:)))
                pull.shown = shown
            }
            pulls.append(pull)
        })
        link.preferredFramesPerSecond = linkRate
        link.add(to: .current, forMode: .common)
        defer { link.invalidate() }
        // As an app does, the link runs before playback starts (and pulls the first picture once it is there).
        Poll.runLoop { pulls.count >= 4 }
        player.play()
        // Only the hang guard bounds the run (a loaded machine plays slower than real time).
        var ticksAfterEnd = 0
        var pullsAtEnd = 0
        Poll.runLoop {
            if ends.count == 1 {
                if pullsAtEnd == 0 { pullsAtEnd = pulls.count }
                ticksAfterEnd = pulls.count - pullsAtEnd
            }
            return ticksAfterEnd >= 6
        }
        XCTAssertEqual(ends.count, 1, "played to the end")
        player.pause()
        link.invalidate()

        let facts = try XCTUnwrap(Fixture.video25AAC.facts.video)
        let period = 1 / Double(facts.framesPerSecond)
        let label = "\(linkRate) Hz link, \(driver) audio"
        let pulled = pulls.compactMap(\.index)
        XCTAssertFalse(pulled.contains { $0 == nil }, "\(label): every picture pulled is readable")
        let indices = pulled.compactMap { $0 }
        XCTAssertEqual(indices, indices.sorted(), "\(label): in order")
        XCTAssertEqual(Set(indices).count, indices.count, "\(label): each picture once")
        for pull in pulls where pull.index != nil {
            if let index = pull.index ?? nil {
                XCTAssertEqual(
                    pull.shown.seconds, Double(index) * period, accuracy: 0.002, "\(label): display time of \(index)")
            }
        }

        // The link's period, and the item time between consecutive ticks: how far apart the asks were.
        let linkPeriod = zip(pulls, pulls.dropFirst()).map { $1.timestamp - $0.timestamp }.min() ?? 0
        let playing = zip(pulls, pulls.dropFirst()).filter {
            $0.asked.seconds > 0.05 && $1.asked.seconds < Double(facts.frameCount) * period - 0.05
        }
        let steps = playing.filter { ($1.timestamp - $0.timestamp) < 1.5 * linkPeriod }.map {
            ($1.asked - $0.asked).seconds
        }
        let seen = Set(indices)
        let missing = (0..<facts.frameCount).filter { !seen.contains($0) }
        let dropped = player.playbackStatistics.framesDropped
        // A missing picture is explained only by load: the engine dropped it as late, it reached the output after the
        // last tick asking within its time, or no tick asked within its time because the run loop was late (the
        // ticks around it are more than one period apart).
        let arrivals = output.store.arrivalLog
        var unexplained: [Int] = []
        for i in missing {
            let start = Double(i) * period
            let end = start + period
            let askedInTime = pulls.filter { $0.asked.seconds >= start && $0.asked.seconds < end }
            if !askedInTime.isEmpty {
                let arrived = arrivals.first { abs($0.itemTime.seconds - start) < 0.002 }?.host
                if let arrived, askedInTime.contains(where: { $0.calledAt >= arrived }) { unexplained.append(i) }
                continue
            }
            guard let after = pulls.firstIndex(where: { $0.asked.seconds >= end }), after > 0 else {
                unexplained.append(i)
                continue
            }
            if pulls[after].timestamp - pulls[after - 1].timestamp < 1.5 * linkPeriod { unexplained.append(i) }
        }
        print(
            "\(label): \(pulls.count) ticks, \(indices.count) pictures pulled; missing \(missing) "
                + "(unexplained \(unexplained)); engine dropped \(dropped); item time per tick "
                + "\(steps.min().map { String(format: "%.1f", $0 * 1000) } ?? "-")–"
                + "\(steps.max().map { String(format: "%.1f", $0 * 1000) } ?? "-") ms for "
                + String(format: "%.1f", linkPeriod * 1000) + " ms")
        if !unexplained.isEmpty {
            for pull in pulls.prefix(12) {
                print(
                    String(
                        format: "  tick %.4f target %.4f asked %.4f", pull.timestamp, pull.targetTimestamp,
                        pull.asked.seconds), pull.index.map { "\($0.map(String.init) ?? "unreadable")" } ?? "-")
            }
        }
        XCTAssertLessThanOrEqual(
            unexplained.count, dropped, "\(label): pictures missed although a tick asked in their time: \(unexplained)")
    }
}
