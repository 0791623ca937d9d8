import Foundation
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// A local file is opened and probed once: the source the asset's loading opened (its caption probe read the first
/// packets) is the one the asset's item plays, from the first packet, as Apple's player and mpv open a file once.
final class WarmLocalSourceTests: XCTestCase {
    private var copy: URL?

    override func tearDown() {
        if let copy { try? FileManager.default.removeItem(at: copy) }
        super.tearDown()
    }

    func test_theAssetsSource_isThePlayedOne_everyFrameFromTheFirst() throws {
        // A path of its own, so that no other test's asset leaves a source for it.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("warm-\(UUID().uuidString).mp4")
        try FileManager.default.copyItem(at: try fixture(.h264AAC), to: url)
        copy = url
        let asset = AVURLAsset(url: url)
        asset.loadValuesAsynchronously(forKeys: ["duration"]) {}
        waitUntil("the asset loaded") { asset.statusOfValue(forKey: "duration", error: nil) == .loaded }
        XCTAssertTrue(WarmSourceShelf.shared.holds(location: url.path), "the asset's loading keeps its source")

        let v = VirtualPlayer()
        let item = AVPlayerItem(asset: asset)
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        XCTAssertFalse(WarmSourceShelf.shared.holds(location: url.path), "the item took it")
        v.player.play()
        waitUntil("the end") { ends.count == 1 }
        XCTAssertEqual(v.frames.indices, (0..<300).map { Optional($0) }, "every picture, from the first")
        XCTAssertEqual(Double(v.audio.samples.count / 2), 480_000, accuracy: 1024, "all 10 s of audio")
        let left = ToneAnalyzer.deinterleave(v.audio.samples, channelCount: 2)[0]
        let middle = Array(left[2048..<(left.count - 2048)])
        XCTAssertEqual(ToneAnalyzer.discontinuities(in: middle, sampleRate: 48_000, frequency: 440), [], "no gap")
    }

    /// A file replaced or written after its source was kept is opened again (the kept source is closed).
    func test_aFileChangedSinceItWasOpened_isNotTaken() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("warm-\(UUID().uuidString).mp4")
        try FileManager.default.copyItem(at: try fixture(.h264AAC), to: url)
        copy = url
        let shelf = WarmSourceShelf()
        let unchanged = FFmpegSource(url: url)
        try unchanged.open()
        shelf.keep(unchanged)
        XCTAssertTrue(shelf.take(location: url.path, options: SourceOptions(), libavformat: [:]) === unchanged)

        let replaced = FFmpegSource(url: url)
        try replaced.open()
        shelf.keep(replaced)
        try FileManager.default.removeItem(at: url)
        try FileManager.default.copyItem(at: try fixture(.h264AAC), to: url)
        XCTAssertNil(shelf.take(location: url.path, options: SourceOptions(), libavformat: [:]))
        XCTAssertTrue(replaced.isInterrupted, "closed")

        let written = FFmpegSource(url: url)
        try written.open()
        shelf.keep(written)
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        XCTAssertNil(shelf.take(location: url.path, options: SourceOptions(), libavformat: [:]))
    }

    /// An asset that cannot play (here a subtitle file: no audio or video) leaves nothing open behind its loading.
    func test_anUnplayableAssetsSource_isNotKept() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("warm-\(UUID().uuidString).srt")
        try Data("1\n00:00:01,000 --> 00:00:02,000\nHello\n\n".utf8).write(to: url)
        copy = url
        let asset = AVURLAsset(url: url)
        asset.loadValuesAsynchronously(forKeys: ["playable"]) {}
        waitUntil("the asset loaded") { asset.statusOfValue(forKey: "playable", error: nil) == .loaded }
        XCTAssertFalse(asset.isPlayable)
        XCTAssertFalse(WarmSourceShelf.shared.holds(location: url.path))
    }
}
