import Foundation
import OAVFLocking
import PlaybackEngine

/// Shows a player's video (Apple's `AVPlayerLayer`).
///
/// On Linux there is no Core Animation, so this is not a `CALayer`: it is an `NSObject` with `frame` and `bounds`
/// for layout, and it displays into a desktop window of its own. When a display is configured (`DISPLAY` or
/// `WAYLAND_DISPLAY` set) and SDL's video subsystem starts, the layer opens one resizable SDL window, titled with
/// the file name and sized to the item's `presentationSize` (else the layer's bounds), with the first picture of
/// the current item; closing the window hides it until the layer is given another player. Without a display the layer is offscreen: it draws nothing, but
/// ``isReadyForDisplay``, ``videoRect`` and ``displayedPixelBuffer()`` behave as on Apple's systems.
///
/// Subtitles of the option selected in the item's legible media-selection group are drawn over the picture, inside the
/// video rectangle and scaled with it, rendered with libass at the window's resolution: text formats with their
/// styling (ASS/SSA styles and positions as they are; SubRip, WebVTT, mov_text and CEA-608 as libavcodec converts them
/// to ASS events, keeping bold, italic, underline and colour), with the item's `textStyleRules` laid over them, and
/// bitmap formats (PGS, DVB, VobSub) as pictures scaled from their frame. A legible output with
/// `suppressesPlayerRendering` set stops them, as a video output with it stops the picture. Changes of the selection,
/// the rules or the suppression show within a twentieth of a second, also while paused.
///
/// Observable with `observe(_:options:changeHandler:)` (handlers on the main queue) and Swift Observation:
/// ``isReadyForDisplay``, ``videoRect``, ``player``, ``videoGravity``, ``frame`` and ``bounds``.
///
/// Differs from Apple:
/// - Not a `CALayer`; no sublayers, animation, `contentsGravity` or compositing. `bounds` is always at the origin
///   with `frame`'s size; setting `bounds` changes `frame`'s size and keeps its origin.
/// - The window's size follows the picture when it opens, then the user's resizing; `frame` does not move or
///   resize it. The window letterboxes per ``videoGravity`` in its own size.
/// - ``oavfAttach(toHostWindow:)`` / ``oavfAttach(toSDLWindow:)`` (OpenAVFoundation extensions) place the video in
///   an X11 window the app owns instead, at ``frame`` in it (the window's pixels, origin top left), covering only the
///   video rectangle; ``isHidden`` hides it. See those methods for what Wayland gets.
/// - Several layers may share a player, but only the most recently attached one (made with, or given, the player)
///   shows video; older layers keep ``isReadyForDisplay`` false. When the newest goes away the next newest takes
///   over with the next picture presented. A new layer takes over the older layer's picture on display, but a
///   layer given a paused player that no layer showed waits for the next picture (play or seek).
/// - All windows present from one shared window thread, so several windows with vsync divide the refresh rate.
/// - The layer follows the player's engine as it is when the player is assigned: set a player's `sourceClock`
///   before giving it to a layer.
/// - `isReadyForDisplay` turns true with the first picture the player presents, not when one is decodable.
/// - ``windowEventHandler`` (an OpenAVFoundation extension) reports keys pressed in the window and requests to
///   close it.
///
/// Thread-safe: every member may be used from any thread. Pictures arrive on the player's engine thread and are
/// handed to the window thread without waiting.
open class AVPlayerLayer: NSObject, @unchecked Sendable {
    /// Guards `state`. The layer's public values (player, gravity, readiness, window), set by the app on any thread and
    /// published by the engine thread's sink. Public type: it keeps its lock for the snapshot it publishes.
    private let lock = ConditionLock()
    private var state = State()
    let observationHub = ObservationHub<AVPlayerLayer>()
    /// Receives the engine's pictures (held by the engine; refers back weakly).
    let sink = PlayerLayerSink()
    /// The layer's window (from ``PlatformOutputs``); opened with the first picture when a display is configured.
    let window = PlatformOutputs.makeWindow(title: "")
    /// Runs first-picture bookkeeping off the engine thread, in order.
    private let events = DispatchQueue(label: "OpenAVFoundation.AVPlayerLayer")

    struct State {
        var player: AVPlayer?
        /// The engine `sink` is registered with.
        weak var engine: PlayerEngine?
        var frame = CGRect.zero
        var gravity = AVLayerVideoGravity.resizeAspect
        var pixelBufferAttributes: [String: Any]?
        var windowEventHandler: (@Sendable (AVPlayerLayerWindowEvent) -> Void)?
        /// The item whose first picture was presented (ready for display while it is the current item).
        weak var readyItem: AVPlayerItem?
        /// The app's X11 window the layer is placed in (``oavfAttach(toHostWindow:)``); nil: a window of its own.
        var hostWindow: UInt?
        var isHidden = false
    }

    /// A layer showing `player`'s video, as Apple's `init(player:)`. It becomes the layer that shows the player's
    /// video (see the type's documentation).
    public init(player: AVPlayer?) {
        super.init()
        sink.layer = self
        window.setSubtitleSource { [weak self] in self?.subtitlesShown() ?? SubtitleSelection(cues: nil) }
        if let player { attach(player) }
    }

    /// A layer without a player, as Apple's `init()`.
    public override convenience init() {
        self.init(player: nil)
    }

    deinit {
        let (player, engine) = lock.withLock { (state.player, state.engine) }
        engine?.removeVideoSink(sink)
        window.close()
        if let player { PlayerLayerRegistry.shared.remove(self, from: player) }
    }

    func read<T>(_ body: (State) -> T) -> T {
        lock.withLock { body(state) }
    }

    func write(_ body: (inout State) -> Void) {
        lock.withLock { body(&state) }
    }

    // MARK: Player

    /// The player whose video is shown, as Apple's `player`. Setting it makes this the layer that shows the new
    /// player's video.
    open var player: AVPlayer? {
        get {
            observationHub.access(self, keyPath: \.player)
            return read { $0.player }
        }
        set {
            observationHub.withMutation(of: self, keyPaths: [\.player, \.isReadyForDisplay, \.videoRect]) {
                detach()
                if let newValue { attach(newValue) }
            }
        }
    }

    private func attach(_ player: AVPlayer) {
        let engine = player.engineCreatingIfNeeded()
        lock.withLock {
            state.player = player
            state.engine = engine
            state.readyItem = nil
        }
        sink.reset()
        let previous = PlayerLayerRegistry.shared.add(self, to: player)
        engine.addVideoSink(sink)
        if let previous, previous !== self {
            previous.observationHub.publish(previous, changed: [\.isReadyForDisplay])
            // Take over the picture on display (a paused player presents no other until it plays or seeks).
            if let (session, buffer, time) = previous.sink.last, sink.adopt(session, buffer, itemTime: time) {
                window.show(buffer, itemTime: time)
                firstPicture(of: session)
            }
        }
    }

    private func detach() {
        let (player, engine) = lock.withLock {
            defer {
                state.player = nil
                state.engine = nil
                state.readyItem = nil
            }
            return (state.player, state.engine)
        }
        engine?.removeVideoSink(sink)
        sink.reset()
        window.close()
        if let player { PlayerLayerRegistry.shared.remove(self, from: player) }
    }

    /// Whether a video output of the item playing `session` asks the player not to render video itself
    /// (`AVPlayerItemOutput.suppressesPlayerRendering`): then the layer shows nothing.
    func renderingSuppressed(for session: ItemSession) -> Bool {
        guard let item = read({ $0.player })?.currentItem, item.session === session else { return false }
        return item.outputs.contains { $0 is AVPlayerItemVideoOutput && $0.suppressesPlayerRendering }
    }

    /// The subtitles drawn over the picture on display (the window's thread asks): the cues of the legible option
    /// selected for the item the picture is of, styled by its `textStyleRules`; none when a legible output of the
    /// item suppresses player rendering, or the item is no longer current.
    func subtitlesShown() -> SubtitleSelection {
        guard let (session, _, _) = sink.last, let item = read({ $0.player })?.currentItem, item.session === session,
            !item.outputs.contains(where: { $0 is AVPlayerItemLegibleOutput && $0.suppressesPlayerRendering })
        else { return SubtitleSelection(cues: nil) }
        return SubtitleSelection(
            cues: session.subtitleCues, style: SubtitleTextStyle(item.read { $0.textStyleRules } ?? []))
    }

    /// Whether this is the layer that shows its player's video.
    var isShowingVideo: Bool {
        guard let player = read({ $0.player }) else { return false }
        return PlayerLayerRegistry.shared.newest(for: player) === self
    }

    // MARK: Geometry

    /// The layer's frame in its (notional) superlayer. Not animatable.
    open var frame: CGRect {
        get {
            observationHub.access(self, keyPath: \.frame)
            return read { $0.frame }
        }
        set {
            observationHub.withMutation(of: self, keyPaths: [\.frame, \.bounds, \.videoRect]) {
                lock.withLock { state.frame = newValue }
            }
            placeInHostWindow()
            sizeWindowToFrame()
        }
    }

    /// The layer's own coordinate space: the origin and `frame`'s size. Setting it changes `frame`'s size.
    open var bounds: CGRect {
        get {
            observationHub.access(self, keyPath: \.bounds)
            return read { CGRect(origin: .zero, size: $0.frame.size) }
        }
        set {
            observationHub.withMutation(of: self, keyPaths: [\.frame, \.bounds, \.videoRect]) {
                lock.withLock { state.frame.size = newValue.standardized.size }
            }
            placeInHostWindow()
            sizeWindowToFrame()
        }
    }

    /// The window takes the layer's size (a layer's frame is where it is drawn): at once when it is open, when it
    /// opens otherwise. A zero size leaves the window at the video's presentation size.
    private func sizeWindowToFrame() {
        let (size, hosted) = read { ($0.frame.standardized.size, $0.hostWindow != nil) }
        guard !hosted else { return }
        let (width, height) = (Int(size.width.rounded()), Int(size.height.rounded()))
        guard width > 0, height > 0 else { return }
        window.setContentSize(width: width, height: height)
        window.resize(width: width, height: height)
    }

    /// Whether the layer is hidden, as `CALayer`'s `isHidden`: a hidden layer draws nothing (its own window is
    /// hidden; in an app's window the picture is taken away, showing the app's drawing under it) and keeps playing.
    /// False by default. Not animated.
    open var isHidden: Bool {
        get { read { $0.isHidden } }
        set {
            lock.withLock { state.isHidden = newValue }
            window.setHidden(newValue)
        }
    }

    /// How the video fills the bounds (and the window), as Apple's `videoGravity`; `.resizeAspect` by default.
    /// Changes take effect at once (not animated).
    open var videoGravity: AVLayerVideoGravity {
        get {
            observationHub.access(self, keyPath: \.videoGravity)
            return read { $0.gravity }
        }
        set {
            observationHub.withMutation(of: self, keyPaths: [\.videoGravity, \.videoRect]) {
                lock.withLock { state.gravity = newValue }
            }
            window.setGravity(Self.windowGravity(newValue))
        }
    }

    /// Where the video is drawn inside ``bounds``, per ``videoGravity`` and the current item's `presentationSize`,
    /// as Apple's `videoRect` (key-value observable). With `.resizeAspectFill` it reaches outside the bounds (the
    /// part shown is cropped); with `.resize` it is the bounds. `.zero` without a current item whose presentation
    /// size is known.
    open var videoRect: CGRect {
        observationHub.access(self, keyPath: \.videoRect)
        let (player, frame, gravity) = read { ($0.player, $0.frame, $0.gravity) }
        // Read through the public getters: an observer of `videoRect` also hears of item and size changes.
        let size = player?.currentItem?.presentationSize ?? .zero
        let bounds = CGRect(origin: .zero, size: frame.size)
        let rect = Self.windowGravity(gravity).videoRect(
            picture: (Double(size.width), Double(size.height)), output: (Double(bounds.width), Double(bounds.height)))
        guard rect.width > 0, rect.height > 0 else { return .zero }
        return CGRect(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
    }

    static func windowGravity(_ gravity: AVLayerVideoGravity) -> VideoGravity {
        switch gravity {
        case .resizeAspectFill: return .resizeAspectFill
        case .resize: return .resize
        default: return .resizeAspect
        }
    }

    // MARK: Readiness

    /// Whether the current item's first picture has been displayed, as Apple's `isReadyForDisplay` (key-value
    /// observable). False without a player, without a current item, for items without enabled video, and for a
    /// layer that is not the newest on its player. It turns false when the current item changes and true again with
    /// the new item's first picture; it stays true across seeks.
    open var isReadyForDisplay: Bool {
        observationHub.access(self, keyPath: \.isReadyForDisplay)
        let (player, ready) = read { ($0.player, $0.readyItem) }
        guard let player, let ready else { return false }
        // Public getter: observers also hear of current-item changes.
        guard ready === player.currentItem else { return false }
        return PlayerLayerRegistry.shared.newest(for: player) === self
    }

    /// The engine presented the first picture of `session` (engine thread): publish readiness, set up the window.
    func firstPicture(of session: ItemSession) {
        events.async { [weak self] in ChangeOrigin.engine { self?.handleFirstPicture(of: session) } }
    }

    private func handleFirstPicture(of session: ItemSession) {
        guard let player = read({ $0.player }), let item = player.item(for: session), sink.isShowing(session)
        else { return }
        observationHub.withMutation(of: self, keyPath: \.isReadyForDisplay) {
            lock.withLock { state.readyItem = item }
        }
        configureWindow(for: item)
    }

    private func configureWindow(for item: AVPlayerItem) {
        let size = item.presentationSize
        let track = item.tracks.lazy.compactMap(\.assetTrack).first { $0.mediaType == .video }
        let t = track?.preferredTransform ?? .identity
        let degrees = Int((atan2(Double(t.b), Double(t.a)) * 180 / .pi).rounded())
        window.setTitle((item.asset as? AVURLAsset)?.url.lastPathComponent ?? "")
        let frame = read { $0.frame.standardized }
        // The window opens at the layer's size when the app gave it one, else at the video's.
        let windowSize = frame.width > 0 && frame.height > 0 ? frame.size : size
        window.setContentSize(width: Int(windowSize.width.rounded()), height: Int(windowSize.height.rounded()))
        if size.width > 0, size.height > 0 {
            window.setDisplayGeometry(size: (Double(size.width), Double(size.height)), rotation: degrees)
        } else {
            window.setDisplayGeometry(size: nil, rotation: degrees)
        }
        window.setGravity(Self.windowGravity(read { $0.gravity }))
        window.open()
    }

    // MARK: Window events

    /// Called on the main queue with each key pressed while the layer's window has the keyboard focus, and when the
    /// user asks to close the window (which is then hidden); nil (the default) ignores them.
    ///
    /// **OpenAVFoundation extension, not Apple API**: Apple's layers live in the app's own views, which receive the
    /// keyboard; here the layer owns its window. Keys typing text arrive as typed (layout and Shift applied).
    public var windowEventHandler: (@Sendable (AVPlayerLayerWindowEvent) -> Void)? {
        get { read { $0.windowEventHandler } }
        set {
            lock.withLock { state.windowEventHandler = newValue }
            guard let newValue else {
                window.setEventHandler(nil)
                return
            }
            window.setEventHandler { event in
                let event = AVPlayerLayerWindowEvent(event)
                DispatchQueue.main.async { newValue(event) }
            }
        }
    }

    // MARK: Pixels

    /// Attributes of the buffers ``displayedPixelBuffer()`` returns, as Apple's `pixelBufferAttributes`: the first
    /// producible format in `kCVPixelBufferPixelFormatTypeKey` is honoured (converted with libswscale); other keys
    /// are ignored. Nil (the default) returns the decoder's buffers.
    open var pixelBufferAttributes: [String: Any]? {
        get { read { $0.pixelBufferAttributes } }
        set { lock.withLock { state.pixelBufferAttributes = newValue } }
    }

    /// The picture on display, as Apple's `displayedPixelBuffer()`: only while the player is paused (rate 0) and
    /// this layer shows the current item; nil otherwise.
    ///
    /// Differs from Apple: without a format in ``pixelBufferAttributes`` the decoder's own buffer is returned, not
    /// a copy; treat its pixels as read-only.
    open func displayedPixelBuffer() -> CVPixelBuffer? {
        guard isReadyForDisplay, let player = read({ $0.player }), player.rate == 0,
            let buffer = sink.lastPicture
        else { return nil }
        let requested = pixelBufferAttributes?[kCVPixelBufferPixelFormatTypeKey]
        guard let format = AVPlayerItemVideoOutput.chooseFormat(requested),
            format != CVPixelBufferGetPixelFormatType(buffer)
        else { return buffer }
        return try? PixelConverter(outputPixelFormatType: format).convert(buffer)
    }
}

extension AVPlayerLayer: AVKeyValueObservable {}

/// The layer's video sink on the player's engine. Engine thread: ``present(_:itemTime:session:)`` keeps the picture,
/// forwards it to the window's mailbox, and on the first picture of a session asks the layer (asynchronously) to
/// publish readiness. Never waits.
final class PlayerLayerSink: VideoFrameSink, @unchecked Sendable {
    /// Set once in the layer's initializer.
    weak var layer: AVPlayerLayer?
    /// Guards the `var`s below. The engine thread presents pictures under it; the layer (app threads) reads the latest
    /// picture and sets the window. Not an engine command: `present` runs on the engine thread and must not wait for
    /// its own mailbox.
    private let lock = ConditionLock()
    private var session: ItemSession?
    private var picture: CVPixelBuffer?
    private var time = CMTime.invalid

    func present(_ frame: VideoFrame, itemTime: CMTime, session from: ItemSession) {
        guard let layer, layer.isShowingVideo, !layer.renderingSuppressed(for: from) else { return }
        let isFirst: Bool = lock.withLock {
            defer {
                session = from
                picture = frame.pixelBuffer
                time = itemTime
            }
            return session !== from
        }
        layer.window.present(frame, itemTime: itemTime, session: from)
        if isFirst { layer.firstPicture(of: from) }
    }

    /// The picture presented last, with its session and item time.
    var last: (ItemSession, CVPixelBuffer, CMTime)? {
        lock.withLock {
            guard let session, let picture else { return nil }
            return (session, picture, time)
        }
    }

    /// Takes over another layer's picture on display, unless a picture arrived meanwhile; true if taken.
    func adopt(_ from: ItemSession, _ buffer: CVPixelBuffer, itemTime: CMTime) -> Bool {
        lock.withLock {
            guard session == nil else { return false }
            (session, picture, time) = (from, buffer, itemTime)
            return true
        }
    }

    func flush(session: ItemSession?) {}

    /// Forgets the session and picture (the layer changed player).
    func reset() {
        lock.withLock {
            session = nil
            picture = nil
            time = .invalid
        }
    }

    /// Whether `session` is the one pictures come from.
    func isShowing(_ candidate: ItemSession) -> Bool {
        lock.withLock { session === candidate }
    }

    /// The picture presented last.
    var lastPicture: CVPixelBuffer? { lock.withLock { picture } }
}

/// Which layers show each player: all layers attached to a player, oldest first; the newest shows video.
final class PlayerLayerRegistry: @unchecked Sendable {
    static let shared = PlayerLayerRegistry()

    private final class WeakLayer {
        weak var layer: AVPlayerLayer?
        init(_ layer: AVPlayerLayer) { self.layer = layer }
    }

    /// Guards `layers`. Layers attach and detach on app threads; the player's engine sink reads which layer shows
    /// video. Not an engine command: layers are the app's objects, shared by every player.
    private let lock = ConditionLock()
    private var layers: [ObjectIdentifier: [WeakLayer]] = [:]

    /// Makes `layer` the newest of `player`'s; returns the one that was newest before.
    func add(_ layer: AVPlayerLayer, to player: AVPlayer) -> AVPlayerLayer? {
        lock.withLock {
            let key = ObjectIdentifier(player)
            var list = (layers[key] ?? []).filter { $0.layer != nil && $0.layer !== layer }
            let previous = list.last?.layer
            list.append(WeakLayer(layer))
            layers[key] = list
            return previous
        }
    }

    func remove(_ layer: AVPlayerLayer, from player: AVPlayer) {
        lock.withLock {
            let key = ObjectIdentifier(player)
            let list = (layers[key] ?? []).filter { $0.layer != nil && $0.layer !== layer }
            layers[key] = list.isEmpty ? nil : list
        }
    }

    /// The layer that shows `player`'s video.
    func newest(for player: AVPlayer) -> AVPlayerLayer? {
        lock.withLock { layers[ObjectIdentifier(player)]?.last { $0.layer != nil }?.layer }
    }
}
