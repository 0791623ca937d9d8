import Foundation
import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// Keeps every picture the engine presents (after composition) with its item time.
final class ComposedFrameRecorder: VideoFrameSink, @unchecked Sendable {
    struct Entry {
        var time: CMTime
        var buffer: CVPixelBuffer
    }
    private let lock = ConditionLock()
    private var storage: [Entry] = []

    func present(_ frame: VideoFrame, itemTime: CMTime, session: ItemSession) {
        lock.withLock { storage.append(Entry(time: itemTime, buffer: frame.pixelBuffer)) }
    }

    func flush(session: ItemSession?) {}

    var entries: [Entry] { lock.withLock { storage } }
}

/// Reads BGRA pixels of a composed picture.
struct BGRAImage {
    let width: Int
    let height: Int
    let bytesPerRow: Int
    let bytes: [UInt8]

    init(_ buffer: CVPixelBuffer) {
        XCTAssertEqual(CVPixelBufferGetPixelFormatType(buffer), kCVPixelFormatType_32BGRA)
        CVPixelBufferLockBaseAddress(buffer, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
        width = CVPixelBufferGetWidth(buffer)
        height = CVPixelBufferGetHeight(buffer)
        bytesPerRow = CVPixelBufferGetBytesPerRow(buffer)
        let base = CVPixelBufferGetBaseAddress(buffer)!
        bytes = Array(UnsafeRawBufferPointer(start: base, count: bytesPerRow * height))
    }

    /// Blue, green, red, alpha at (x, y).
    func pixel(_ x: Int, _ y: Int) -> (b: UInt8, g: UInt8, r: UInt8, a: UInt8) {
        let o = y * bytesPerRow + 4 * x
        return (bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3])
    }

    /// The grey level at (x, y) (mean of the colour channels).
    func level(_ x: Int, _ y: Int) -> Double {
        let p = pixel(x, y)
        return (Double(p.b) + Double(p.g) + Double(p.r)) / 3
    }

    func isBlack(_ x: Int, _ y: Int) -> Bool {
        let p = pixel(x, y)
        return p.b == 0 && p.g == 0 && p.r == 0 && p.a == 255
    }

    /// The frame index drawn in the sub-rectangle (x, y, w, h) (the fixture picture placed there), optionally with
    /// inverted colours.
    func frameIndex(x: Int = 0, y: Int = 0, width w: Int? = nil, height h: Int? = nil, inverted: Bool = false) -> Int? {
        FrameIndexReader.read(width: w ?? width, height: h ?? height) { px, py in
            let v = level(x + px, y + py)
            return inverted ? 255 - v : v
        }?
        .index
    }
}

/// Plays `fixture` to its end on an untimed virtual clock with `composition`, returning the composed pictures.
func playComposed(
    _ composition: AVVideoComposition?, fixture name: Fixture = .videoOnly,
    configure: (AVPlayerItem) -> Void = { _ in },
    file: StaticString = #filePath, line: UInt = #line
) throws -> (item: AVPlayerItem, frames: [ComposedFrameRecorder.Entry]) {
    // Not `VirtualPlayer`: its frame recorder reads pictures as planar luma, and composed pictures are BGRA.
    let player = AVPlayer()
    player.sourceClock = VirtualClock(mode: .untimed)
    player.audioSinkOverride = { NullAudioSink() }
    let recorder = ComposedFrameRecorder()
    player.engineCreatingIfNeeded().addVideoSink(recorder)
    let item = AVPlayerItem(url: try fixture(name, file: file, line: line))
    item.videoComposition = composition
    configure(item)
    let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
    player.replaceCurrentItem(with: item)
    player.play()
    waitUntil("end of \(name.rawValue)", timeout: 60, file: file, line: line) { ends.count == 1 }
    player.pause()
    return (item, recorder.entries)
}

/// The index of the 30 fps fixture frame shown at `time`.
func frameNumber(_ time: CMTime) -> Int {
    Int((time.seconds * 30).rounded())
}

/// A 320×240 composition with one instruction over everything and `layer` for the video track of `name`.
func composition(
    for name: Fixture, renderSize: CGSize = CGSize(width: 320, height: 240),
    _ configureLayer: (AVMutableVideoCompositionLayerInstruction) -> Void
) throws -> AVMutableVideoComposition {
    let asset = AVURLAsset(url: try fixture(name))
    let track = try XCTUnwrap(asset.tracks(withMediaType: .video).first)
    let layer = AVMutableVideoCompositionLayerInstruction(assetTrack: track)
    configureLayer(layer)
    let instruction = AVMutableVideoCompositionInstruction()
    instruction.timeRange = CMTimeRange(start: .zero, duration: CMTime(value: 100, timescale: 1))
    instruction.layerInstructions = [layer]
    let composition = AVMutableVideoComposition()
    composition.renderSize = renderSize
    composition.frameDuration = CMTime(value: 1, timescale: 30)
    composition.instructions = [instruction]
    return composition
}

/// A player on a manual virtual clock playing `videoOnly` with `composition` and `output`, at item time 0.
struct ManualComposedPlayer {
    let player = AVPlayer()
    let clock = VirtualClock(mode: .manual)
    let item: AVPlayerItem

    init(_ composition: AVVideoComposition?, output: AVPlayerItemVideoOutput) throws {
        player.sourceClock = clock
        player.audioSinkOverride = { NullAudioSink() }
        item = AVPlayerItem(url: try fixture(.videoOnly))
        item.add(output)
        item.videoComposition = composition
        player.replaceCurrentItem(with: item)
        player.play()
        let player = self.player
        waitUntil("playing") { player.timeControlStatus == .playing }
    }

    /// The picture `output` vends for frame `k` (the clock moved just past k/30).
    func picture(_ k: Int, from output: AVPlayerItemVideoOutput) -> CVPixelBuffer? {
        let target = CMTime(value: Int64(k) * 1_000_000 + 500, timescale: 30_000_000)
        if target > clock.time { clock.advance(by: target - clock.time) }
        return copyPicture(output, at: CMTime(value: Int64(k), timescale: 30)).buffer
    }
}
