import Foundation
import OAVFLocking
import PlaybackEngine

/// Vends the item's video as `CVPixelBuffer`s to a client that pulls them, typically once per display refresh
/// from a display link (Apple's `AVPlayerItemVideoOutput`):
///
///     let t = output.itemTime(for: inOutputTime.pointee)
///     if output.hasNewPixelBuffer(forItemTime: t),
///        let buffer = output.copyPixelBuffer(forItemTime: t, itemTimeForDisplay: nil) { draw(buffer) }
///
/// The output receives each picture when the player presents it (at its item time) and keeps only the current
/// picture and those after it; earlier ones are discarded, so a client that falls behind skips pictures and never
/// slows playback. Several outputs on one item each receive every picture and keep their own record of what was
/// acquired.
///
/// Differs from Apple:
/// - In real-time playback forwards, pictures arrive up to 50 ms before they are due (so a display link asking
///   about its next refresh finds the picture for it); with a virtual clock, or playing backwards, they arrive when
///   due.
/// - Formats: without `kCVPixelBufferPixelFormatTypeKey`, 8-bit 4:2:0 video comes as Apple's default for it,
///   bi-planar `kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange` (`'420v'`; `'420f'` for full-range streams), the
///   layout texture code expects (one texture per plane); 10-bit 4:2:0 video (HEVC Main 10, VP9 profile 2, AV1) as
///   bi-planar 10-bit `kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange` (`'x420'`, `'xf20'` at full range: P010, a
///   16-bit little-endian word per sample with the 10 bits on top); other decoded formats come as they are. The key
///   (one number or an array: the first format listed that can be produced is used) chooses among `'420v'`,
///   `'420f'`, `'x420'`, `'xf20'`, `'y420'`, `'f420'`, `'BGRA'`, `'RGBA'`, `'ARGB'` and `'L008'`; the decoder's own
///   buffer is returned without a copy when it already has that format (`'y420'` for most 8-bit 4:2:0 streams,
///   `'x420'` for 10-bit ones), otherwise the picture is converted with libswscale into the output's pool (unscaled
///   4:2:0 to `'420v'` is a plane copy and a chroma interleave) on the output's own queue as each picture arrives,
///   so ``copyPixelBuffer(forItemTime:itemTimeForDisplay:)`` returns at once and the playback thread stays free (a
///   pull that comes before its picture's conversion is done converts on the pulling thread). `'x420'` asked of an
///   8-bit source is widened (the low bits carry nothing); 8-bit formats asked of a 10-bit source are rounded (with
///   libswscale's dither). A list naming only formats that cannot be produced gets the default.
///   `kCVPixelBufferWidthKey` / `kCVPixelBufferHeightKey` scale (bicubic; with only one of them the other keeps the
///   aspect ratio). Row-alignment, IOSurface, OpenGL and Metal keys are ignored.
/// - Colour: every buffer carries the stream's colour primaries, transfer function and YCbCr matrix attachments, and
///   HDR10 mastering-display and content-light metadata when the stream has them
///   (`kCVImageBufferMasteringDisplayColorVolumeKey`, `kCVImageBufferContentLightLevelInfoKey`); on the buffers the
///   output makes, values the stream leaves unstated are filled with the ones players assume (BT.709 for HD, BT.601
///   below); the decoder's own buffers, vended without a copy, carry only what the stream states. Range is the pixel
///   format's, as on Apple's systems.
/// - Memory: converted buffers come from a pool that reuses the buffers the app has let go; buffers the app keeps
///   are simply not reused (the pool allocates beside them), so an app holding buffers never stalls decoding.
/// - With no delegate queue the delegate is called on the main queue.
/// - Buffers vended without conversion are the decoder's own memory (no copy): treat their pixels as read-only.
///   At most four pictures are held per output.
///
/// Thread-safe: every method may be called from any thread. Conversions are serialised per output.
open class AVPlayerItemVideoOutput: AVPlayerItemOutput, @unchecked Sendable {
    /// The pixel format buffers are converted to; nil: Apple's default for the decoded format (`defaultFormat(forDecoded:)`).
    let pixelFormatType: OSType?
    /// The requested size (`kCVPixelBufferWidthKey`, `kCVPixelBufferHeightKey`); nil: the decoded one.
    let requestedWidth: Int?
    let requestedHeight: Int?
    /// Receives pictures from the engine.
    let store = VideoOutputStore()
    /// Serialises conversions (a converter is single-threaded). Taken by the output's conversion queue and by the
    /// app's threads pulling a picture not converted yet (`copyPixelBuffer`). Lock order: this lock, then the
    /// store's. Not an engine command: conversion runs off the engine's threads, on the output's own queue.
    private let converterLock = ConditionLock()
    /// Converts pictures as they arrive (``picturesArrived(_:)``), off the engine's and the app's threads.
    private let conversionQueue = DispatchQueue(label: "OpenAVFoundation.AVPlayerItemVideoOutput.conversion")
    /// Whether a conversion pass is queued and not started yet (the engine's presenting thread sets it, the
    /// conversion queue clears it).
    private let conversionScheduled = Locked(false)
    /// Guarded by `converterLock`; made on the first conversion (format only), or for the current input size
    /// (scaling).
    private var scaler: PixelConverter?
    private var resizer: ScalingPixelConverter?
    /// Guarded by `converterLock`: conversions made ahead of their pulls and on pulling threads.
    private var conversions = (ahead: 0, onPull: 0)

    /// Guarded by `outputLock`.
    private weak var pullDelegate: (any AVPlayerItemOutputPullDelegate)?
    private var queue: DispatchQueue?

    /// An output vending buffers with `pixelBufferAttributes` (CoreVideo keys; nil: Apple's default format), as
    /// Apple's `init(pixelBufferAttributes:)`. See the type's documentation for the keys honoured.
    public init(pixelBufferAttributes: [String: Any]? = nil) {
        self.pixelFormatType = Self.chooseFormat(pixelBufferAttributes?[kCVPixelBufferPixelFormatTypeKey])
        self.requestedWidth = pixelBufferAttributes?[kCVPixelBufferWidthKey].flatMap(Self.dimension)
        self.requestedHeight = pixelBufferAttributes?[kCVPixelBufferHeightKey].flatMap(Self.dimension)
        super.init()
        store.owner = WeakOutput(self)
        PlatformOutputs.installDisplayModes()
    }

    /// An output configured with output settings, as Apple's `init(outputSettings:)`: the pixel-buffer keys are
    /// honoured as in ``init(pixelBufferAttributes:)``; `AVVideo…` keys (width, height, colour properties) are
    /// ignored.
    public convenience init(outputSettings: [String: Any]?) {
        self.init(pixelBufferAttributes: outputSettings)
    }

    // MARK: Pulling pictures

    /// Whether a picture for `itemTime` exists that has not been acquired by
    /// ``copyPixelBuffer(forItemTime:itemTimeForDisplay:)`` yet, as Apple's `hasNewPixelBuffer(forItemTime:)`.
    open func hasNewPixelBuffer(forItemTime itemTime: CMTime) -> Bool {
        guard itemTime.isNumeric else { return false }
        return store.hasNewFrame(at: itemTime)
    }

    /// The picture to show at `itemTime` (the latest one starting at or before it), marked acquired, as Apple's
    /// `copyPixelBuffer(forItemTime:itemTimeForDisplay:)`. `outItemTimeForDisplay` receives the picture's own
    /// item time. Nil means show nothing: no picture yet for that time, the item is not playing, or the conversion
    /// failed. The same picture may be copied again (the same buffer is returned).
    open func copyPixelBuffer(
        forItemTime itemTime: CMTime, itemTimeForDisplay outItemTimeForDisplay: UnsafeMutablePointer<CMTime>?
    ) -> CVPixelBuffer? {
        guard itemTime.isNumeric, let entry = store.acquire(at: itemTime) else { return nil }
        outItemTimeForDisplay?.pointee = entry.time
        return vended(entry, onPull: true)
    }

    /// The buffer `entry` is vended as: the decoder's own when it has the output's format and size, else its
    /// conversion (made ahead by ``picturesArrived(_:)`` as a rule, here when the pull came first).
    private func vended(_ entry: VideoOutputStore.Entry, onPull: Bool) -> CVPixelBuffer? {
        if let converted = entry.converted { return converted }
        let decoded = entry.buffer
        guard let (format, width, height) = conversion(of: decoded) else { return decoded }
        converterLock.lock()
        defer { converterLock.unlock() }
        // Converted meanwhile (ahead, or by another thread pulling the same picture).
        if let converted = store.converted(for: entry.id) { return converted }
        guard let converted = convert(decoded, to: format, width: width, height: height) else { return nil }
        Self.completeColorAttachments(
            of: converted, pictureWidth: CVPixelBufferGetWidth(decoded), pictureHeight: CVPixelBufferGetHeight(decoded))
        store.setConverted(converted, for: entry.id)
        if onPull { conversions.onPull += 1 } else { conversions.ahead += 1 }
        return converted
    }

    /// How many pictures were converted ahead of their pull and on a pulling thread (tests).
    var conversionCounts: (ahead: Int, onPull: Int) { converterLock.withLock { conversions } }

    /// The format and size `decoded` is vended in, or nil when it is vended as it is (no conversion).
    private func conversion(of decoded: CVPixelBuffer) -> (format: OSType, width: Int, height: Int)? {
        let decodedFormat = CVPixelBufferGetPixelFormatType(decoded)
        let format = pixelFormatType ?? Self.defaultFormat(forDecoded: decodedFormat)
        let (width, height) = outputSize(for: decoded)
        if format == decodedFormat, width == CVPixelBufferGetWidth(decoded), height == CVPixelBufferGetHeight(decoded) {
            return nil
        }
        return (format, width, height)
    }

    /// Pictures arrived (the engine's presenting thread, from ``VideoOutputStore``): converts those not pulled yet
    /// on the output's own queue, so that a pull finds its picture in the output's format and returns at once,
    /// whatever the conversion costs (the app's display link never converts unless it pulls a picture before its
    /// conversion is done). One conversion pass is queued at a time; the engine never waits for it.
    func picturesArrived(_ newest: CVPixelBuffer) {
        // Vended as decoded: nothing to do ahead (and nothing queued per picture).
        guard conversion(of: newest) != nil else { return }
        let schedule = conversionScheduled.withLock { scheduled in
            defer { scheduled = true }
            return !scheduled
        }
        guard schedule else { return }
        conversionQueue.async { [weak self] in
            guard let self else { return }
            self.conversionScheduled.withLock { $0 = false }
            for entry in self.store.notAcquired() { _ = self.vended(entry, onPull: false) }
        }
    }

    /// The same-size converter's pool counters (tests): nil before the first conversion.
    var converterPoolStatistics: PixelBufferPoolStatistics? {
        converterLock.withLock { scaler?.poolStatistics }
    }

    /// The format vended without `kCVPixelBufferPixelFormatTypeKey`: Apple's default for the source, bi-planar
    /// 4:2:0 (`'420v'`, `'420f'` at full range) for 8-bit 4:2:0 pictures; other decoded formats (`'x420'` for 10-bit
    /// 4:2:0) as they are.
    static func defaultFormat(forDecoded format: OSType) -> OSType {
        switch format {
        case kCVPixelFormatType_420YpCbCr8Planar: return kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange
        case kCVPixelFormatType_420YpCbCr8PlanarFullRange: return kCVPixelFormatType_420YpCbCr8BiPlanarFullRange
        default: return format
        }
    }

    /// Attaches the colour description the stream left unstated, as a player assumes it (mpv's and libavcodec's
    /// guesses): BT.709 primaries, transfer and matrix for pictures wider than 1024 or taller than 576 lines;
    /// below that the BT.601 matrix with EBU 3213 (576-line, PAL) or SMPTE C primaries, and the BT.709 transfer.
    /// Attachments the stream states are kept. Range is the pixel format's (`'420v'` video, `'420f'` full).
    static func completeColorAttachments(of buffer: CVPixelBuffer, pictureWidth: Int, pictureHeight: Int) {
        let hd = pictureWidth > 1024 || pictureHeight > 576
        let primaries =
            hd
            ? kCVImageBufferColorPrimaries_ITU_R_709_2
            : (pictureHeight == 576 ? kCVImageBufferColorPrimaries_EBU_3213 : kCVImageBufferColorPrimaries_SMPTE_C)
        var defaults: [(CFString, CFString)] = [
            (kCVImageBufferColorPrimariesKey, primaries),
            (kCVImageBufferTransferFunctionKey, kCVImageBufferTransferFunction_ITU_R_709_2),
        ]
        if PixelFormatLayout.forPixelFormatType(CVPixelBufferGetPixelFormatType(buffer))?.isYCbCr ?? false {
            defaults.append(
                (
                    kCVImageBufferYCbCrMatrixKey,
                    hd ? kCVImageBufferYCbCrMatrix_ITU_R_709_2 : kCVImageBufferYCbCrMatrix_ITU_R_601_4
                ))
        }
        for (key, value) in defaults where CVBufferCopyAttachment(buffer, key, nil) == nil {
            CVBufferSetAttachment(buffer, key, value as AnyObject, .shouldPropagate)
        }
    }

    /// The size buffers are vended at: the requested one; with only one dimension requested, the other follows
    /// the picture's aspect ratio.
    private func outputSize(for buffer: CVPixelBuffer) -> (Int, Int) {
        let (w, h) = (CVPixelBufferGetWidth(buffer), CVPixelBufferGetHeight(buffer))
        switch (requestedWidth, requestedHeight) {
        case (let rw?, let rh?): return (rw, rh)
        case (let rw?, nil): return (rw, max(1, Int((Double(rw) * Double(h) / Double(w)).rounded())))
        case (nil, let rh?): return (max(1, Int((Double(rh) * Double(w) / Double(h)).rounded())), rh)
        case (nil, nil): return (w, h)
        }
    }

    /// Converts `buffer`; called with `converterLock` held.
    private func convert(_ buffer: CVPixelBuffer, to format: OSType, width: Int, height: Int) -> CVPixelBuffer? {
        do {
            if width == CVPixelBufferGetWidth(buffer) && height == CVPixelBufferGetHeight(buffer) {
                if scaler == nil { scaler = try PixelConverter(outputPixelFormatType: format) }
                return try scaler?.convert(buffer)
            }
            if let r = resizer, r.outputPixelFormatType == format, r.width == width, r.height == height {
                return try r.convert(buffer)
            }
            let r = try ScalingPixelConverter(outputPixelFormatType: format, width: width, height: height)
            resizer = r
            return try r.convert(buffer)
        } catch {
            return nil
        }
    }

    // MARK: Delegate

    /// The delegate, held weakly, as Apple's `delegate`.
    open var delegate: (any AVPlayerItemOutputPullDelegate)? { outputLock.withLock { pullDelegate } }

    /// The queue delegate methods are called on, as Apple's `delegateQueue`.
    open var delegateQueue: DispatchQueue? { outputLock.withLock { queue } }

    /// Sets the delegate (held weakly) and the queue its methods are called on, as Apple's
    /// `setDelegate(_:queue:)`. Differs from Apple: a nil queue means the main queue.
    open func setDelegate(_ delegate: (any AVPlayerItemOutputPullDelegate)?, queue delegateQueue: DispatchQueue?) {
        outputLock.withLock {
            pullDelegate = delegate
            queue = delegateQueue
        }
    }

    /// Asks for one ``AVPlayerItemOutputPullDelegate/outputMediaDataWillChange(_:)`` when new pictures arrive, as
    /// Apple's `requestNotificationOfMediaDataChange(withAdvanceInterval:)` — for a client going quiescent (a
    /// display link stopped while paused).
    ///
    /// Differs from Apple: the notice comes when the next picture arrives, or at once if one not yet acquired is
    /// already there and due within `interval` of playback (never while paused: time does not move), rather than
    /// exactly `interval` seconds ahead of the change.
    open func requestNotificationOfMediaDataChange(withAdvanceInterval interval: TimeInterval) {
        var horizon = CMTime.positiveInfinity
        if let binding = currentBinding {
            let now = binding.engine.currentTime(of: binding.session)
            let rate = Double(abs(binding.engine.currentRate))
            let ahead = interval.isFinite ? max(0, interval) * rate : 0
            horizon = now + CMTime(seconds: ahead, preferredTimescale: 1_000_000_000)
        }
        if store.requestNotification(dueBy: horizon) { notifyMediaDataWillChange() }
    }

    /// Calls `outputMediaDataWillChange` on the delegate queue.
    func notifyMediaDataWillChange() {
        deliver { delegate, output in delegate.outputMediaDataWillChange(output) }
    }

    /// Calls `outputSequenceWasFlushed` on the delegate queue.
    func notifySequenceWasFlushed() {
        deliver { delegate, output in delegate.outputSequenceWasFlushed(output) }
    }

    private func deliver(_ call: @escaping (any AVPlayerItemOutputPullDelegate, AVPlayerItemOutput) -> Void) {
        let (delegate, queue) = outputLock.withLock { (pullDelegate, self.queue) }
        guard let delegate else { return }
        // The delegate is used only on its queue, as the API contract says.
        let work = UncheckedDelivery(delegate: delegate, output: self, call: call)
        (queue ?? .main).async { work.run() }
    }

    // MARK: Engine side

    override func bindingChanged(from old: Binding?, to new: Binding?) {
        if let old, old.engine !== new?.engine { old.engine.removeVideoSink(store) }
        store.setSession(new?.session)
        new?.engine.addVideoSink(store)
    }

    /// The first format in `value` (one number or an array of numbers) the output can produce.
    static func chooseFormat(_ value: Any?) -> OSType? {
        guard let value else { return nil }
        let listed: [Any] = (value as? [Any]) ?? [value]
        return listed.lazy.compactMap(osType).first { PixelConverter.supportedOutputPixelFormatTypes.contains($0) }
    }

    /// A positive dimension of any integer type (or `NSNumber`); nil otherwise.
    private static func dimension(_ value: Any) -> Int? {
        osType(value).flatMap { $0 > 0 && $0 <= 16384 ? Int($0) : nil }
    }

    /// A pixel format number of any integer type (or `NSNumber`).
    private static func osType(_ value: Any) -> OSType? {
        switch value {
        case let v as OSType: return v
        case let v as Int: return OSType(exactly: v)
        case let v as Int32: return OSType(exactly: v)
        case let v as Int64: return OSType(exactly: v)
        case let v as UInt: return OSType(exactly: v)
        case let v as UInt64: return OSType(exactly: v)
        case let v as NSNumber: return v.uint32Value
        default: return nil
        }
    }
}

/// A delegate call handed to the delegate queue (the delegate need not be `Sendable`; it is only used there).
private struct UncheckedDelivery: @unchecked Sendable {
    let delegate: any AVPlayerItemOutputPullDelegate
    let output: AVPlayerItemOutput
    let call: (any AVPlayerItemOutputPullDelegate, AVPlayerItemOutput) -> Void

    func run() { call(delegate, output) }
}

/// The store's weak reference to its output (set once, before the store is registered anywhere).
final class WeakOutput: @unchecked Sendable {
    weak var output: AVPlayerItemVideoOutput?
    init(_ output: AVPlayerItemVideoOutput) { self.output = output }
}
