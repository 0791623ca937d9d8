import CoreGraphics
import CoreMedia
import Dispatch
import Foundation
import OAVFLocking
import PlaybackEngine

/// Makes still images of an asset's video: a poster frame, a scrubbing strip, a thumbnail per chapter.
///
/// As on Apple's systems, times asked for together (`generateCGImagesAsynchronously(forTimes:completionHandler:)`,
/// `images(for:)`) are answered in one pass over the file: sorted, each GOP decoded at most once, every answer
/// with its true `actualTime`. With the default tolerances (`.positiveInfinity`) a time is answered by the keyframe
/// at or before it, decoded alone — nothing after it is read or decoded; with `.zero` tolerances it is answered by
/// the picture showing at that time exactly. Work runs on the generator's own serial queue (one decoder, kept open
/// between calls); completion handlers are called there, once per requested time. Interlaced video is answered with
/// the decoded frame, its two fields woven as they were coded (no deinterlacing: Apple documents none either).
///
/// Differs from Apple:
/// - `apertureMode`: `.cleanAperture` and `.productionAperture` show the decoder's cropped picture with square pixels
///   (the pixel aspect ratio applied); `.encodedPixels` keeps the decoded pixels as they are (no aspect correction).
/// - `videoComposition`: honoured for its `renderSize` only (the track's picture, turned by its preferred transform,
///   is scaled to fill it); instructions and custom compositors are not applied to still images.
/// - `dynamicRangePolicy`: images are always 8-bit sRGB. Under `.forceSDR` (the default) HDR (PQ, HLG) pictures are
///   tone-mapped to BT.709 by libavfilter (`zscale` + `tonemap=hable`, as media servers do); under `.matchSource`
///   they are converted as they are, values clipped (there is no HDR `CGImage` here).
/// - Results come in increasing time order (equal to the request order for increasing times).
open class AVAssetImageGenerator: NSObject, @unchecked Sendable {
    /// The asset the images come from.
    public let asset: AVAsset

    /// What the app set; read by each batch when it starts.
    private struct Settings {
        var appliesPreferredTrackTransform = false
        var maximumSize = CGSize.zero
        var apertureMode = ApertureMode.cleanAperture
        var videoComposition: AVVideoComposition?
        var requestedTimeToleranceBefore = CMTime.positiveInfinity
        var requestedTimeToleranceAfter = CMTime.positiveInfinity
        var dynamicRangePolicy = DynamicRangePolicy.forceSDR
    }
    /// The settings; any thread. Not an engine command: a generator has no player engine.
    private let settings = Locked(Settings())
    /// Batches not yet finished, so `cancelAllCGImageGeneration()` can reach them. Added and removed on the generator's
    /// queue, read by any thread calling `cancelAllCGImageGeneration()`. Not an engine command: a generator has no
    /// player engine.
    private let batches = Locked<[ObjectIdentifier: ImageBatch]>([:])
    /// The extractor (input and decoder), kept open between batches. Created, used and dropped on `queue` only; the
    /// lock lets `cancelAllCGImageGeneration()` interrupt it from another thread. Not an engine command: a generator
    /// has no player engine.
    private let extractor = Locked<StillFrameExtractor?>(nil)
    /// Where images are made, one batch at a time.
    private let queue = DispatchQueue(label: "OpenAVFoundation.AVAssetImageGenerator")
    /// Marks `queue` so a synchronous call made on it runs inline instead of deadlocking.
    private let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    /// A generator for `asset`'s first enabled video track.
    public init(asset: AVAsset) {
        self.asset = asset
        super.init()
        queue.setSpecific(key: queueKey, value: ObjectIdentifier(self))
    }

    deinit {
        extractor.withLock { $0?.interrupt() }
    }

    /// Whether images are turned as the track's `preferredTransform` says (default false: stored orientation).
    open var appliesPreferredTrackTransform: Bool {
        get { settings.withLock { $0.appliesPreferredTrackTransform } }
        set { settings.withLock { $0.appliesPreferredTrackTransform = newValue } }
    }

    /// The largest image size; the aspect ratio is kept and images are never enlarged. `.zero` (the default): the
    /// track's own size; a zero width or height leaves that dimension free.
    open var maximumSize: CGSize {
        get { settings.withLock { $0.maximumSize } }
        set { settings.withLock { $0.maximumSize = newValue } }
    }

    /// Which part of the picture an image shows (see the type's documentation for what each mode does here).
    open var apertureMode: ApertureMode {
        get { settings.withLock { $0.apertureMode } }
        set { settings.withLock { $0.apertureMode = newValue } }
    }

    /// A composition whose `renderSize` sets the image size (see the type's documentation).
    open var videoComposition: AVVideoComposition? {
        get { settings.withLock { $0.videoComposition } }
        set { settings.withLock { $0.videoComposition = newValue } }
    }

    /// How far before a requested time an image may be (default `.positiveInfinity`: the keyframe before it will do).
    open var requestedTimeToleranceBefore: CMTime {
        get { settings.withLock { $0.requestedTimeToleranceBefore } }
        set { settings.withLock { $0.requestedTimeToleranceBefore = Self.tolerance(newValue, #function) } }
    }

    /// How far after a requested time an image may be (default `.positiveInfinity`).
    open var requestedTimeToleranceAfter: CMTime {
        get { settings.withLock { $0.requestedTimeToleranceAfter } }
        set { settings.withLock { $0.requestedTimeToleranceAfter = Self.tolerance(newValue, #function) } }
    }

    /// Whether HDR video is converted to standard dynamic range (default `.forceSDR`).
    open var dynamicRangePolicy: DynamicRangePolicy {
        get { settings.withLock { $0.dynamicRangePolicy } }
        set { settings.withLock { $0.dynamicRangePolicy = newValue } }
    }

    /// A tolerance must be numeric and not negative, or positive infinity (Apple raises otherwise).
    private static func tolerance(_ value: CMTime, _ function: String) -> CMTime {
        if !(value.isPositiveInfinity || (value.isNumeric && value >= .zero)) {
            apiViolation("\(function) must be a non-negative numeric time or .positiveInfinity, not \(value)")
        }
        return value
    }

    // MARK: Generating

    /// The image at `requestedTime`, made on the calling thread's behalf (it blocks until the image is made), and
    /// the time of the picture it shows in `actualTime`.
    ///
    /// - Throws: an `AVError`: `AVError.Code.noImageAtTime` for a time outside the asset, a damaged
    ///   picture or no video; the asset's loading error; `AVError.Code.operationCancelled` when
    ///   `cancelAllCGImageGeneration()` stopped it.
    @available(iOS, deprecated: 16.0, renamed: "generateCGImageAsynchronously(for:completionHandler:)")
    open func copyCGImage(at requestedTime: CMTime, actualTime: UnsafeMutablePointer<CMTime>?) throws -> CGImage {
        let outcome = Locked<(CGImage?, CMTime, (any Error)?)>((nil, .invalid, nil))
        let batch = ImageBatch(times: [requestedTime]) { _, image, actual, _, error in
            outcome.withLock { $0 = (image, actual, error) }
        }
        if DispatchQueue.getSpecific(key: queueKey) == ObjectIdentifier(self) {
            run(batch)
        } else {
            register(batch)
            queue.sync { run(batch) }
        }
        let (image, actual, error) = outcome.current
        if let image {
            actualTime?.pointee = actual
            return image
        }
        throw error ?? AVError.media(.unknown, "No image was made.")
    }

    /// Makes an image for each of `requestedTimes` (`NSValue`s holding `CMTime`s) in one pass, calling `handler`
    /// once per time on the generator's queue, in increasing time order: `.succeeded` with the image, `.failed`
    /// with an `AVError`, or `.cancelled` after `cancelAllCGImageGeneration()`.
    open func generateCGImagesAsynchronously(
        forTimes requestedTimes: [NSValue], completionHandler handler: @escaping AVAssetImageGeneratorCompletionHandler
    ) {
        let times = requestedTimes.map { $0.timeValue }
        submit(ImageBatch(times: times, handler: handler))
    }

    /// Makes the image at `requestedTime` and calls `handler` with it (or the error) on the generator's queue.
    open func generateCGImageAsynchronously(
        for requestedTime: CMTime,
        completionHandler handler: @escaping @Sendable (CGImage?, CMTime, (any Error)?) -> Void
    ) {
        submit(
            ImageBatch(times: [requestedTime]) { _, image, actual, _, error in
                handler(image, actual, error)
            })
    }

    /// Stops every request not yet answered: their handlers are called with `.cancelled` (an error with code
    /// `AVError.Code.operationCancelled`). A picture being decoded is abandoned.
    open func cancelAllCGImageGeneration() {
        let pending = batches.withLock { all -> [ImageBatch] in
            defer { all.removeAll() }
            return Array(all.values)
        }
        guard !pending.isEmpty else { return }
        for batch in pending { batch.cancel() }
        // Stops a read or decode in progress (an interrupted input stays interrupted: the next batch opens a new one).
        extractor.withLock {
            $0?.interrupt()
            $0 = nil
        }
    }

    /// The image at `time` and the time of the picture it shows.
    ///
    /// - Throws: what `copyCGImage(at:actualTime:)` throws; `CancellationError` when the task is cancelled.
    public func image(at time: CMTime) async throws -> (image: CGImage, actualTime: CMTime) {
        let batchBox = Locked<ImageBatch?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let batch = ImageBatch(times: [time]) { _, image, actual, result, error in
                    if let image {
                        continuation.resume(returning: (image, actual))
                    } else if result == .cancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        continuation.resume(throwing: error ?? AVError.media(.unknown, "No image was made."))
                    }
                }
                batchBox.withLock { $0 = batch }
                // A task cancelled before the batch existed (the handler below found none to cancel).
                if Task.isCancelled { batch.cancel() }
                submit(batch)
            }
        } onCancel: {
            batchBox.withLock { $0?.cancel() }
        }
    }

    /// The images at `times`, as an asynchronous sequence of results in increasing time order (made in one pass,
    /// starting now). Ending the iteration early stops the work.
    public func images(for times: [CMTime]) -> Images {
        let (stream, continuation) = AsyncStream<Images.Element>.makeStream()
        let batch = ImageBatch(times: times) { requested, image, actual, _, error in
            if let image {
                continuation.yield(.success(requestedTime: requested, image: image, actualTime: actual))
            } else {
                continuation.yield(
                    .failure(requestedTime: requested, error: error ?? AVError.media(.unknown, "No image was made.")))
            }
        } finished: {
            continuation.finish()
        }
        continuation.onTermination = { _ in batch.cancel() }
        submit(batch)
        return Images(stream: stream)
    }

    /// What the open extractor did (pictures decoded, packets sent, seeks), for tests; nil before the first batch.
    var extractionCounters: StillFrameExtractor.Counters? { extractor.current?.counters }

    // MARK: Work

    private func register(_ batch: ImageBatch) {
        batches.withLock { $0[ObjectIdentifier(batch)] = batch }
    }

    private func submit(_ batch: ImageBatch) {
        register(batch)
        queue.async { [self] in run(batch) }
    }

    /// Answers `batch` (on `queue`): every time once, in increasing order.
    private func run(_ batch: ImageBatch) {
        defer {
            batches.withLock { $0[ObjectIdentifier(batch)] = nil }
            batch.finish()
        }
        let times = batch.times
        var answered = [Bool](repeating: false, count: times.count)
        func answer(_ i: Int, _ image: CGImage?, _ actual: CMTime, _ result: Result, _ error: (any Error)?) {
            guard !answered[i] else { return }
            answered[i] = true
            batch.handler(times[i], image, actual, result, error)
        }
        func cancelRest() {
            for i in times.indices where !answered[i] {
                answer(
                    i, nil, .invalid, .cancelled,
                    AVError.media(.operationCancelled, "Image generation was cancelled."))
            }
        }
        if batch.isCancelled { return cancelRest() }
        let description: AssetDescription
        do {
            description = try asset.description()
        } catch {
            for i in times.indices { answer(i, nil, .invalid, .failed, error) }
            return
        }
        guard
            let track = description.tracks.first(where: {
                $0.mediaType == .video && $0.isEnabled && !$0.isClosedCaptions
            })
                ?? description.tracks.first(where: { $0.mediaType == .video && !$0.isClosedCaptions })
        else {
            let error = AVError.media(
                .operationNotSupportedForAsset,
                "“\(AVError.displayName(description.url))” has no video to make images of.",
                url: description.url)
            for i in times.indices { answer(i, nil, .invalid, .failed, error) }
            return
        }
        // Times outside the asset fail; the rest are answered in increasing order.
        var order: [Int] = []
        for (i, t) in times.enumerated() {
            if t.isNumeric && t >= .zero && (!description.duration.isNumeric || t <= description.duration) {
                order.append(i)
            } else {
                answer(
                    i, nil, .invalid, .failed,
                    AVError.media(
                        .noImageAtTime,
                        "There is no image at \(Self.describe(t)) in “\(AVError.displayName(description.url))”.",
                        reason: "The time is outside the asset (0 to \(Self.describe(description.duration))).",
                        url: description.url))
            }
        }
        order.sort { times[$0] < times[$1] }
        let options = stillOptions(track: track)
        let origin = description.timeOrigin
        guard let extractor = currentExtractor(description: description, streamIndex: track.streamIndex) else {
            return cancelRest()
        }
        extractor.extract(
            order.map { times[$0] + origin }, options: options,
            isCancelled: { batch.isCancelled }
        ) { position, result in
            let i = order[position]
            switch result {
            case .success(let picture):
                let image = CGImage(
                    oavfBGRX: picture.bytes, width: picture.width, height: picture.height,
                    bytesPerRow: picture.bytesPerRow)
                answer(i, image, picture.time - origin, .succeeded, nil)
            case .failure(let failure):
                if failure == .exit || batch.isCancelled {
                    answer(
                        i, nil, .invalid, .cancelled,
                        AVError.media(.operationCancelled, "Image generation was cancelled."))
                    return
                }
                answer(
                    i, nil, .invalid, .failed,
                    AVError.media(
                        failure == .decoderNotFound ? .decoderNotFound : .noImageAtTime,
                        "There is no image at \(Self.describe(times[i])) in “\(AVError.displayName(description.url))”.",
                        reason: failure == .invalidData
                            ? "The picture there is damaged." : failure.message,
                        url: description.url, ffmpeg: failure))
            }
        }
        cancelRest()
    }

    /// The open extractor, or a new one for the asset's input (on `queue`); nil when cancelled meanwhile.
    private func currentExtractor(description: AssetDescription, streamIndex: Int) -> StillFrameExtractor? {
        if let existing = extractor.current, existing.streamIndex == streamIndex { return existing }
        let location = description.url.mediaLocation
        let options = SourceOptions(assetOptions: asset.loader.options)
        // The input the asset's loading left open, when nobody took it yet (a file is then opened and probed once,
        // as for a player item), else a new one: HLS through the HLS module, the rest through libavformat.
        let source = MediaSourceFactory.avFoundation.make(location, options, [:], Cancellation())
        let made = StillFrameExtractor(source: source, streamIndex: streamIndex)
        extractor.withLock { $0 = made }
        return made
    }

    /// The extractor's options from the settings and the track.
    private func stillOptions(track: AssetDescription.Track) -> StillPictureOptions {
        let s = settings.current
        var options = StillPictureOptions()
        options.toleranceBefore = s.requestedTimeToleranceBefore
        options.toleranceAfter = s.requestedTimeToleranceAfter
        options.maximumWidth = s.maximumSize.width > 0 ? max(1, Int(s.maximumSize.width)) : 0
        options.maximumHeight = s.maximumSize.height > 0 ? max(1, Int(s.maximumSize.height)) : 0
        options.appliesPixelAspectRatio = s.apertureMode != .encodedPixels
        options.toneMapsHighDynamicRange = s.dynamicRangePolicy != .matchSource
        if s.appliesPreferredTrackTransform || s.videoComposition != nil {
            (options.quarterTurns, options.mirrored) = Self.turns(track.preferredTransform)
        }
        if let composition = s.videoComposition, composition.renderSize.width > 0, composition.renderSize.height > 0 {
            options.renderSize = (Int(composition.renderSize.width), Int(composition.renderSize.height))
        }
        return options
    }

    /// The clockwise quarter turns and mirroring of an axis-aligned transform (mirror first); other transforms
    /// (shears, arbitrary angles) count as none.
    static func turns(_ t: CGAffineTransform) -> (quarterTurns: Int, mirrored: Bool) {
        func sign(_ v: CGFloat) -> Int { v > 1e-6 ? 1 : (v < -1e-6 ? -1 : 0) }
        switch (sign(t.a), sign(t.b), sign(t.c), sign(t.d)) {
        case (1, 0, 0, 1): return (0, false)
        case (0, 1, -1, 0): return (1, false)
        case (-1, 0, 0, -1): return (2, false)
        case (0, -1, 1, 0): return (3, false)
        case (-1, 0, 0, 1): return (0, true)
        case (0, -1, -1, 0): return (1, true)
        case (1, 0, 0, -1): return (2, true)
        case (0, 1, 1, 0): return (3, true)
        default: return (0, false)
        }
    }

    /// A time for messages: seconds with three decimals.
    static func describe(_ t: CMTime) -> String {
        t.isNumeric ? String(format: "%.3f s", t.seconds) : "\(t)"
    }
}

/// Called once per requested time with the requested time, the image (nil unless `.succeeded`), the time of the
/// picture it shows, the result and the error (Apple's `AVAssetImageGeneratorCompletionHandler`).
public typealias AVAssetImageGeneratorCompletionHandler =
    @Sendable (CMTime, CGImage?, CMTime, AVAssetImageGenerator.Result, (any Error)?) -> Void

/// One call's times and handler, with its cancellation flag. Thread-safe.
final class ImageBatch: Sendable {
    let times: [CMTime]
    let handler: AVAssetImageGeneratorCompletionHandler
    private let finished: (@Sendable () -> Void)?
    /// Set by any thread cancelling, read by the generator's queue between pictures. Not an engine command: a generator
    /// has no player engine.
    private let cancelled = Locked(false)

    init(
        times: [CMTime], handler: @escaping AVAssetImageGeneratorCompletionHandler,
        finished: (@Sendable () -> Void)? = nil
    ) {
        self.times = times
        self.handler = handler
        self.finished = finished
    }

    var isCancelled: Bool { cancelled.current }
    func cancel() { cancelled.withLock { $0 = true } }
    func finish() { finished?() }
}
