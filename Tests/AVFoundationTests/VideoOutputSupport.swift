import Foundation
import OAVFLocking
import TestSupport
import XCTest

@testable import AVFoundation

/// The frame index drawn in a fixture picture, read from any format a video output vends.
func frameIndex(of buffer: CVPixelBuffer) -> Int? {
    CVPixelBufferLockBaseAddress(buffer, .readOnly)
    defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
    let width = CVPixelBufferGetWidth(buffer)
    let height = CVPixelBufferGetHeight(buffer)
    let packed: PackedPixelLayout?
    switch CVPixelBufferGetPixelFormatType(buffer) {
    case kCVPixelFormatType_32BGRA: packed = .bgra
    case kCVPixelFormatType_32ARGB: packed = .argb
    case kCVPixelFormatType_32RGBA: packed = .rgba
    default: packed = nil
    }
    if let packed, let base = CVPixelBufferGetBaseAddress(buffer) {
        return FrameIndexReader.read(
            pixels: base, layout: packed, width: width, height: height,
            bytesPerRow: CVPixelBufferGetBytesPerRow(buffer))?
            .index
    }
    guard let luma = CVPixelBufferGetBaseAddressOfPlane(buffer, 0) ?? CVPixelBufferGetBaseAddress(buffer) else {
        return nil
    }
    if let index = frameIndex(ofTenBit: buffer, luma: luma) { return index }
    let stride =
        CVPixelBufferIsPlanar(buffer)
        ? CVPixelBufferGetBytesPerRowOfPlane(buffer, 0) : CVPixelBufferGetBytesPerRow(buffer)
    return FrameIndexReader.read(luma: luma, width: width, height: height, bytesPerRow: stride)?.index
}

/// The frame index of a 10-bit bi-planar buffer (`x420`, `xf20`: P010, each sample a little-endian 16-bit word with
/// the 10 bits on top), read from its 16-bit luma plane at `luma` (locked); nil for other formats.
func frameIndex(ofTenBit buffer: CVPixelBuffer, luma: UnsafeMutableRawPointer) -> Int? {
    let type = CVPixelBufferGetPixelFormatType(buffer)
    guard
        type == kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange
            || type == kCVPixelFormatType_420YpCbCr10BiPlanarFullRange
    else { return nil }
    let stride = CVPixelBufferGetBytesPerRowOfPlane(buffer, 0)
    return FrameIndexReader.read(width: CVPixelBufferGetWidth(buffer), height: CVPixelBufferGetHeight(buffer)) { x, y in
        Double(UInt16(littleEndian: luma.loadUnaligned(fromByteOffset: y * stride + 2 * x, as: UInt16.self))) / 257
    }?.index
}

/// Records delegate calls and the queue they came on.
final class PullDelegateRecorder: AVPlayerItemOutputPullDelegate, @unchecked Sendable {
    static let queueKey = DispatchSpecificKey<String>()
    let queue: DispatchQueue
    private let lock = ConditionLock()
    private var flushes = 0
    private var changes = 0
    private var offQueue = 0
    /// Called (on the delegate queue) for each media-data notice.
    var onMediaDataWillChange: (@Sendable () -> Void)?

    init(label: String = "oavf.test.pull-delegate") {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: Self.queueKey, value: label)
    }

    private func noteQueue() {
        if DispatchQueue.getSpecific(key: Self.queueKey) != queue.label { offQueue += 1 }
    }

    func outputSequenceWasFlushed(_ output: AVPlayerItemOutput) {
        lock.withLock {
            noteQueue()
            flushes += 1
        }
    }

    func outputMediaDataWillChange(_ sender: AVPlayerItemOutput) {
        lock.withLock {
            noteQueue()
            changes += 1
        }
        onMediaDataWillChange?()
    }

    var counts: (flushes: Int, changes: Int, offQueue: Int) {
        lock.withLock { (flushes, changes, offQueue) }
    }
}

/// Takes pictures from `output` until the one for item time `t` is there (several may become due at once); returns
/// it and the item time the output gave for it (`t`), failing the test on timeout.
func copyPicture(
    _ output: AVPlayerItemVideoOutput, at t: CMTime, file: StaticString = #filePath, line: UInt = #line
) -> (buffer: CVPixelBuffer?, shown: CMTime) {
    var shown = CMTime.invalid
    var copied: CVPixelBuffer?
    waitUntil("the picture at \(t.seconds) s", file: file, line: line) {
        copied = output.copyPixelBuffer(forItemTime: t, itemTimeForDisplay: &shown)
        return shown == t
    }
    return (copied, shown)
}
