import Foundation
import OAVFLocking

@testable import AVFoundation

/// A custom compositor that inverts the colours of its single source, recording what it is asked.
final class InvertingCompositor: NSObject, AVVideoCompositing, @unchecked Sendable {
    struct Record {
        var request: AVAsynchronousVideoCompositionRequest
        var time: CMTime
        var trackIDs: [CMPersistentTrackID]
        var sourceFormat: OSType?
        var renderContextsBefore: Int
    }

    let sourcePixelBufferAttributes: [String: any Sendable]? = [
        kCVPixelBufferPixelFormatTypeKey: [kCVPixelFormatType_32BGRA]
    ]
    let requiredPixelBufferAttributesForRenderContext: [String: any Sendable] = [
        kCVPixelBufferPixelFormatTypeKey: kCVPixelFormatType_32BGRA
    ]
    /// What `startRequest` does beyond inverting: cancel some requests, or never finish some.
    var behaviour: @Sendable (Int) -> Behaviour = { _ in .invert }
    enum Behaviour { case invert, cancel, ignore }

    private let lock = ConditionLock()
    private var records: [Record] = []
    private var contexts: [AVVideoCompositionRenderContext] = []
    private var cancelAllCalls = 0

    func renderContextChanged(_ newRenderContext: AVVideoCompositionRenderContext) {
        lock.withLock { contexts.append(newRenderContext) }
    }

    func startRequest(_ request: AVAsynchronousVideoCompositionRequest) {
        let n: Int = lock.withLock {
            let trackIDs = request.sourceTrackIDs.map(\.int32Value)
            let source = trackIDs.first.flatMap { request.sourceFrame(byTrackID: $0) }
            records.append(
                Record(
                    request: request, time: request.compositionTime, trackIDs: trackIDs,
                    sourceFormat: source.map(CVPixelBufferGetPixelFormatType), renderContextsBefore: contexts.count))
            return records.count - 1
        }
        switch behaviour(n) {
        case .cancel:
            request.finishCancelledRequest()
            return
        case .ignore:
            return
        case .invert:
            break
        }
        guard let id = request.sourceTrackIDs.first?.int32Value, let source = request.sourceFrame(byTrackID: id),
            let output = request.renderContext.newPixelBuffer()
        else {
            request.finish(with: NSError(domain: "test", code: 1))
            return
        }
        CVPixelBufferLockBaseAddress(source, .readOnly)
        CVPixelBufferLockBaseAddress(output, [])
        let width = CVPixelBufferGetWidth(output)
        let height = CVPixelBufferGetHeight(output)
        let inRow = CVPixelBufferGetBytesPerRow(source)
        let outRow = CVPixelBufferGetBytesPerRow(output)
        let src = CVPixelBufferGetBaseAddress(source)!.assumingMemoryBound(to: UInt8.self)
        let dst = CVPixelBufferGetBaseAddress(output)!.assumingMemoryBound(to: UInt8.self)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<3 { dst[y * outRow + 4 * x + c] = 255 - src[y * inRow + 4 * x + c] }
                dst[y * outRow + 4 * x + 3] = 255
            }
        }
        CVPixelBufferUnlockBaseAddress(output, [])
        CVPixelBufferUnlockBaseAddress(source, .readOnly)
        request.finish(withComposedVideoFrame: output)
        // A second finish (with the untouched source) must be ignored.
        request.finish(withComposedVideoFrame: source)
        request.finishCancelledRequest()
    }

    func cancelAllPendingVideoCompositionRequests() {
        lock.withLock { cancelAllCalls += 1 }
    }

    var recorded: (records: [Record], contexts: [AVVideoCompositionRenderContext], cancelAll: Int) {
        lock.withLock { (records, contexts, cancelAllCalls) }
    }
}

/// A custom instruction passing one track through.
final class PassthroughInstruction: NSObject, AVVideoCompositionInstructionProtocol, @unchecked Sendable {
    let timeRange = CMTimeRange(start: .zero, duration: CMTime(value: 100, timescale: 1))
    let enablePostProcessing = false
    let containsTweening = false
    let requiredSourceTrackIDs: [NSValue]? = nil
    let passthroughTrackID: CMPersistentTrackID

    init(trackID: CMPersistentTrackID) {
        passthroughTrackID = trackID
        super.init()
    }
}
