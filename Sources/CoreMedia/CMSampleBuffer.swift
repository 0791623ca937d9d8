import CoreVideo
import Foundation
import Synchronization

/// A count of items (samples, timing entries), as Apple's `CMItemCount`.
public typealias CMItemCount = Int
/// An index of an item, as Apple's `CMItemIndex`.
public typealias CMItemIndex = Int

/// The timing of one sample, or of every sample of a buffer when the buffer has one entry (Apple's
/// `CMSampleTimingInfo`).
public struct CMSampleTimingInfo: Hashable, Sendable {
    /// How long the sample lasts.
    public var duration: CMTime
    /// When the sample is presented.
    public var presentationTimeStamp: CMTime
    /// When the sample is decoded; `.invalid` when it equals the presentation time stamp.
    public var decodeTimeStamp: CMTime

    /// Every time invalid.
    public init() {
        self.init(duration: .invalid, presentationTimeStamp: .invalid, decodeTimeStamp: .invalid)
    }

    /// A timing of the given duration and time stamps.
    public init(duration: CMTime, presentationTimeStamp: CMTime, decodeTimeStamp: CMTime) {
        self.duration = duration
        self.presentationTimeStamp = presentationTimeStamp
        self.decodeTimeStamp = decodeTimeStamp
    }

    /// A timing with every time invalid (Apple's `CMSampleTimingInfo.invalid`).
    public static let invalid = CMSampleTimingInfo()
}

/// A timing with every time invalid, as Apple's `kCMTimingInfoInvalid`.
public let kCMTimingInfoInvalid = CMSampleTimingInfo.invalid

/// Zero or more media samples of one type with their timing and format (Apple's `CMSampleBuffer`): a decoded
/// picture (``imageBuffer``), or compressed samples or linear PCM audio (``dataBuffer``).
///
/// Linux design: a class rather than a Core Foundation type, made by the framework (`AVAssetReaderOutput`); the
/// C-style functions (`CMSampleBufferGetPresentationTimeStamp(_:)`, `CMSampleBufferGetImageBuffer(_:)`, …) and the
/// Swift members of Apple's overlay (``presentationTimeStamp``, ``numSamples``, ``imageBuffer``, …) are both here.
/// Attachments, data readiness and the creation functions are not.
///
/// Thread safety: immutable apart from ``isValid`` (an atomic flag); any thread.
public final class CMSampleBuffer: @unchecked Sendable {
    /// The samples' format.
    public let formatDescription: CMFormatDescription?
    /// The samples' bytes (compressed samples, or linear PCM); nil for a picture.
    public let dataBuffer: CMBlockBuffer?
    /// The picture; nil for data samples.
    public let imageBuffer: CVImageBuffer?
    /// The number of samples (audio frames for linear PCM; 1 for a picture or a compressed video frame).
    public let numSamples: CMItemCount
    /// One entry per sample, or one entry for all of them (every linear PCM buffer), or none.
    private let timings: [CMSampleTimingInfo]
    /// One size per sample, or one size for all of them, or none (a picture).
    private let sizes: [Int]
    /// Cleared by ``invalidate()`` on any thread. One flag, so an `Atomic`, not a lock.
    private let valid = Atomic<Bool>(true)

    /// A buffer of `numSamples` samples: `dataBuffer` or `imageBuffer`, one timing entry per sample or one for all,
    /// one size per sample or one for all.
    package init(
        formatDescription: CMFormatDescription?, dataBuffer: CMBlockBuffer?, imageBuffer: CVImageBuffer?,
        numSamples: CMItemCount, timings: [CMSampleTimingInfo], sampleSizes: [Int]
    ) {
        self.formatDescription = formatDescription
        self.dataBuffer = dataBuffer
        self.imageBuffer = imageBuffer
        self.numSamples = numSamples
        self.timings = timings
        self.sizes = sampleSizes
    }

    /// Whether the buffer is still valid (``invalidate()`` was not called).
    public var isValid: Bool { valid.load(ordering: .acquiring) }

    /// Marks the buffer invalid.
    ///
    /// - Throws: an `NSError` in `NSOSStatusErrorDomain` with `kCMSampleBufferError_Invalidated` when it already was.
    public func invalidate() throws {
        let (exchanged, _) = valid.compareExchange(expected: true, desired: false, ordering: .acquiringAndReleasing)
        if !exchanged {
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(kCMSampleBufferError_Invalidated))
        }
    }

    /// The earliest presentation time stamp of the samples (`.invalid` without timing).
    public var presentationTimeStamp: CMTime {
        timings.map(\.presentationTimeStamp).filter(\.isValid).min() ?? .invalid
    }

    /// The presentation time stamp after any output adjustment: the same as ``presentationTimeStamp`` (no trim or
    /// speed attachments exist here).
    public var outputPresentationTimeStamp: CMTime { presentationTimeStamp }

    /// The earliest decode time stamp of the samples (`.invalid` when none is set).
    public var decodeTimeStamp: CMTime {
        timings.map(\.decodeTimeStamp).filter(\.isValid).min() ?? .invalid
    }

    /// The total duration of the samples (`.invalid` without timing).
    public var duration: CMTime {
        if timings.count == 1 {
            let each = timings[0].duration
            guard each.isValid, numSamples > 1 else { return each }
            return CMTimeMultiply(each, multiplier: Int32(clamping: numSamples))
        }
        guard !timings.isEmpty else { return .invalid }
        var total = CMTime.zero
        for timing in timings {
            guard timing.duration.isValid else { return .invalid }
            total = total + timing.duration
        }
        return total
    }

    /// The total size of the samples in bytes (0 for a picture).
    public var totalSampleSize: Int {
        if sizes.count == 1 { return sizes[0] * numSamples }
        return sizes.reduce(0, +)
    }

    /// The timing entries: one per sample, or one that applies to every sample.
    ///
    /// - Throws: an `NSError` in `NSOSStatusErrorDomain` with `kCMSampleBufferError_BufferHasNoSampleTimingInfo` when
    ///   the buffer has none.
    public func sampleTimingInfos() throws -> [CMSampleTimingInfo] {
        guard !timings.isEmpty else {
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(kCMSampleBufferError_BufferHasNoSampleTimingInfo))
        }
        return timings
    }

    /// The sample sizes: one per sample, or one that applies to every sample; empty for a picture.
    public func sampleSizes() throws -> [Int] { sizes }
}

/// A required parameter is missing.
public let kCMSampleBufferError_RequiredParameterMissing: OSStatus = -12731
/// The buffer has no sample sizes.
public let kCMSampleBufferError_BufferHasNoSampleSizes: OSStatus = -12735
/// The buffer has no timing.
public let kCMSampleBufferError_BufferHasNoSampleTimingInfo: OSStatus = -12736
/// An output array is too small.
public let kCMSampleBufferError_ArrayTooSmall: OSStatus = -12737
/// The buffer was invalidated.
public let kCMSampleBufferError_Invalidated: OSStatus = -12744

/// Whether the buffer is still valid, as Apple's `CMSampleBufferIsValid`.
public func CMSampleBufferIsValid(_ sbuf: CMSampleBuffer) -> Bool { sbuf.isValid }

/// Marks the buffer invalid, as Apple's `CMSampleBufferInvalidate`.
///
/// - Returns: 0, or `kCMSampleBufferError_Invalidated` when it already was.
public func CMSampleBufferInvalidate(_ sbuf: CMSampleBuffer) -> OSStatus {
    (try? sbuf.invalidate()) == nil ? kCMSampleBufferError_Invalidated : 0
}

/// The picture of a video sample buffer, as Apple's `CMSampleBufferGetImageBuffer`.
public func CMSampleBufferGetImageBuffer(_ sbuf: CMSampleBuffer) -> CVImageBuffer? { sbuf.imageBuffer }

/// The bytes of a data sample buffer, as Apple's `CMSampleBufferGetDataBuffer`.
public func CMSampleBufferGetDataBuffer(_ sbuf: CMSampleBuffer) -> CMBlockBuffer? { sbuf.dataBuffer }

/// The samples' format, as Apple's `CMSampleBufferGetFormatDescription`.
public func CMSampleBufferGetFormatDescription(_ sbuf: CMSampleBuffer) -> CMFormatDescription? {
    sbuf.formatDescription
}

/// The number of samples, as Apple's `CMSampleBufferGetNumSamples`.
public func CMSampleBufferGetNumSamples(_ sbuf: CMSampleBuffer) -> CMItemCount { sbuf.numSamples }

/// The earliest presentation time stamp, as Apple's `CMSampleBufferGetPresentationTimeStamp`.
public func CMSampleBufferGetPresentationTimeStamp(_ sbuf: CMSampleBuffer) -> CMTime { sbuf.presentationTimeStamp }

/// The earliest decode time stamp, as Apple's `CMSampleBufferGetDecodeTimeStamp`.
public func CMSampleBufferGetDecodeTimeStamp(_ sbuf: CMSampleBuffer) -> CMTime { sbuf.decodeTimeStamp }

/// The output presentation time stamp, as Apple's `CMSampleBufferGetOutputPresentationTimeStamp`.
public func CMSampleBufferGetOutputPresentationTimeStamp(_ sbuf: CMSampleBuffer) -> CMTime {
    sbuf.outputPresentationTimeStamp
}

/// The total duration of the samples, as Apple's `CMSampleBufferGetDuration`.
public func CMSampleBufferGetDuration(_ sbuf: CMSampleBuffer) -> CMTime { sbuf.duration }

/// The total size of the samples in bytes, as Apple's `CMSampleBufferGetTotalSampleSize`.
public func CMSampleBufferGetTotalSampleSize(_ sbuf: CMSampleBuffer) -> Int { sbuf.totalSampleSize }

/// Copies the timing entries, as Apple's `CMSampleBufferGetSampleTimingInfoArray`: with a nil array only the count
/// needed is reported.
///
/// - Returns: 0; `kCMSampleBufferError_BufferHasNoSampleTimingInfo` when the buffer has none;
///   `kCMSampleBufferError_ArrayTooSmall` when `numSampleTimingEntries` is smaller than the count.
public func CMSampleBufferGetSampleTimingInfoArray(
    _ sbuf: CMSampleBuffer, entryCount numSampleTimingEntries: CMItemCount,
    arrayToFill timingArrayOut: UnsafeMutablePointer<CMSampleTimingInfo>?,
    entriesNeededOut timingArrayEntriesNeededOut: UnsafeMutablePointer<CMItemCount>?
) -> OSStatus {
    guard let timings = try? sbuf.sampleTimingInfos() else {
        timingArrayEntriesNeededOut?.pointee = 0
        return kCMSampleBufferError_BufferHasNoSampleTimingInfo
    }
    timingArrayEntriesNeededOut?.pointee = timings.count
    guard let timingArrayOut else { return 0 }
    guard numSampleTimingEntries >= timings.count else { return kCMSampleBufferError_ArrayTooSmall }
    for (index, timing) in timings.enumerated() { timingArrayOut[index] = timing }
    return 0
}

/// The timing of sample `sampleIndex`, as Apple's `CMSampleBufferGetSampleTimingInfo`.
///
/// - Returns: 0; `kCMSampleBufferError_BufferHasNoSampleTimingInfo` when the buffer has none;
///   `kCMSampleBufferError_SampleIndexOutOfRange` when the index is not a sample's.
public func CMSampleBufferGetSampleTimingInfo(
    _ sbuf: CMSampleBuffer, at sampleIndex: CMItemIndex, timingInfoOut: UnsafeMutablePointer<CMSampleTimingInfo>
) -> OSStatus {
    guard let timings = try? sbuf.sampleTimingInfos() else { return kCMSampleBufferError_BufferHasNoSampleTimingInfo }
    guard sampleIndex >= 0, sampleIndex < max(sbuf.numSamples, timings.count) else {
        return kCMSampleBufferError_SampleIndexOutOfRange
    }
    if timings.count == 1 {
        var timing = timings[0]
        if timing.presentationTimeStamp.isValid, timing.duration.isValid, sampleIndex > 0 {
            let offset = CMTimeMultiply(timing.duration, multiplier: Int32(clamping: sampleIndex))
            timing.presentationTimeStamp = timing.presentationTimeStamp + offset
            if timing.decodeTimeStamp.isValid { timing.decodeTimeStamp = timing.decodeTimeStamp + offset }
        }
        timingInfoOut.pointee = timing
    } else {
        timingInfoOut.pointee = timings[sampleIndex]
    }
    return 0
}

/// A sample index is out of range.
public let kCMSampleBufferError_SampleIndexOutOfRange: OSStatus = -12734
