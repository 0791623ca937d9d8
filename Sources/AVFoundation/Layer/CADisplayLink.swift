import CoreVideo
import Foundation
import OAVFLocking
import PlaybackEngine

/// A timer that calls back on a run loop once per display refresh (or at a preferred rate), as QuartzCore's
/// `CADisplayLink` (which `import AVFoundation` brings in on Apple's systems): what an app pulling pictures from
/// `AVPlayerItemVideoOutput` drives its drawing with.
///
///     let link = CADisplayLink(target: self, selector: Self.step)   // Apple: #selector(step(_:))
///     link.preferredFramesPerSecond = 30
///     link.add(to: .main, forMode: .common)
///
///     func step(_ link: CADisplayLink) {
///         let t = output.itemTime(forHostTime: link.targetTimestamp)
///         if output.hasNewPixelBuffer(forItemTime: t),
///            let buffer = output.copyPixelBuffer(forItemTime: t, itemTimeForDisplay: nil) { draw(buffer) }
///     }
///
/// Callbacks come on the thread running the run loop the link was added to, while it runs in a mode the link was
/// added for (`.common` covers `.default`). The link ticks on a grid of host time (`CACurrentMediaTime()`'s clock)
/// at the display's refresh rate — the rate `CVDisplayLink` uses: SDL's current display mode once a player or video
/// output exists, else a nominal 60 Hz — or at the factor of it closest to ``preferredFramesPerSecond`` /
/// ``preferredFrameRateRange``. ``timestamp`` is the grid time of the tick being called back, ``targetTimestamp``
/// the next callback's; a run loop late by a period or more skips ticks (as Apple's link skips frames), it never
/// calls back twice for one tick.
///
/// Differs from Apple:
/// - Without an Objective-C runtime there are no selectors. `init(target:selector:)` takes an unapplied method
///   reference instead (`selector: Self.step`, `MyView.step`) — `(Target) -> (CADisplayLink) -> Void`, or
///   `(Target) -> () -> Void` for a method without the sender — and retains the target as Apple's does.
///   ``init(oavfHandler:)`` (an OpenAVFoundation extension) takes a closure.
/// - The grid follows the host clock, not the display's vsync (there is no compositor feedback).
/// - Run loops on Linux: a link added to `RunLoop.main` calls back only while the main thread runs the run loop
///   (`RunLoop.main.run()`, `run(mode:before:)` in the app's own loop); `dispatchMain()` does not run it.
/// - A link belongs to one run loop: adding it to a second one traps.
///
/// Thread-safe: every member may be called from any thread.
open class CADisplayLink: NSObject {
    /// How the callback rate was asked for: the last of ``preferredFramesPerSecond`` and ``preferredFrameRateRange``
    /// set wins.
    enum Preference {
        case framesPerSecond(Int)
        case range(CAFrameRateRange)
    }

    /// Where ticks fall: tick n at `origin + n × period` host nanoseconds.
    private struct Grid {
        var origin: UInt64
        /// Nanoseconds between callbacks.
        var period: Double
        /// Seconds of one display refresh.
        var refreshPeriod: Double
    }

    /// Everything mutable.
    private struct State {
        /// What a tick calls; nil once invalidated (the target is released then).
        var action: ((CADisplayLink) -> Void)?
        var isPaused = false
        var preferredFramesPerSecond = 0
        var preferredFrameRateRange = CAFrameRateRange.default
        var preference = Preference.framesPerSecond(0)
        var timestamp: CFTimeInterval = 0
        var targetTimestamp: CFTimeInterval = 0
        var duration: CFTimeInterval = 0
        /// The run loop the link was added to, and one timer per mode it was added for.
        var runLoop: RunLoop?
        var timers: [RunLoop.Mode: Timer] = [:]
        var grid: Grid?
        /// The last tick of the current grid called back (or skipped while paused): a tick is never called back
        /// twice. A new grid starts from tick 0 (now); its first callback is tick 1 or later.
        var lastTick: Int64 = 0
    }

    /// Guards everything mutable. Never held while calling the action or into the run loop. The app's threads set it up
    /// and the link's timer thread reads it. Not an engine command: a display link has no player engine.
    private let state: Locked<State>

    /// A link calling `action` on every tick.
    private init(action: @escaping (CADisplayLink) -> Void) {
        state = Locked(State(action: action))
        super.init()
        PlatformOutputs.installDisplayModes()
    }

    /// A link calling `selector` on `target` with the link on every tick, as Apple's `init(target:selector:)`;
    /// `target` is retained until ``invalidate()``.
    ///
    /// Differs from Apple: the selector is an unapplied method reference, `CADisplayLink(target: self, selector:
    /// Self.step)` for `func step(_ link: CADisplayLink)`, where Apple writes `#selector(step(_:))`.
    public convenience init<Target: AnyObject>(
        target: Target, selector: @escaping (Target) -> (CADisplayLink) -> Void
    ) {
        self.init(action: { link in selector(target)(link) })
    }

    /// A link calling `selector`, a method of `target` without the sender, on every tick, as Apple's
    /// `init(target:selector:)` with a selector taking no argument; `target` is retained until ``invalidate()``.
    public convenience init<Target: AnyObject>(target: Target, selector: @escaping (Target) -> () -> Void) {
        self.init(action: { _ in selector(target)() })
    }

    /// A link calling `handler` on every tick (an OpenAVFoundation extension: Apple's link takes only a target and
    /// a selector). The handler is kept until ``invalidate()``.
    public convenience init(oavfHandler handler: @escaping (CADisplayLink) -> Void) {
        self.init(action: handler)
    }

    // MARK: Timing

    /// The host time in seconds (`CACurrentMediaTime()`'s clock) of the tick being called back — the refresh the
    /// previous picture was shown at — as Apple's `timestamp`; 0 before the first callback.
    open var timestamp: CFTimeInterval { state.withLock { $0.timestamp } }

    /// The host time in seconds of the next callback's tick — when the picture drawn now is shown — as Apple's
    /// `targetTimestamp`: ask `AVPlayerItemVideoOutput.itemTime(forHostTime:)` about this one. 0 before the first
    /// callback.
    open var targetTimestamp: CFTimeInterval { state.withLock { $0.targetTimestamp } }

    /// Seconds between two refreshes of the display, as Apple's `duration` (at a preferred rate below the display's,
    /// callbacks are `targetTimestamp - timestamp` apart instead); 0 before the first callback.
    open var duration: CFTimeInterval { state.withLock { $0.duration } }

    /// Whether callbacks are suspended, as Apple's `isPaused` (default false). Ticks passing while paused are not
    /// called back later.
    open var isPaused: Bool {
        get { state.withLock { $0.isPaused } }
        set { state.withLock { $0.isPaused = newValue } }
    }

    /// The callback rate wanted, as Apple's `preferredFramesPerSecond`; 0 (the default) means the display's
    /// refresh rate. The link calls back at the factor of the refresh rate closest to it (a higher one on a tie):
    /// 30 on a 60 Hz display is every second refresh; 25 is also 30.
    open var preferredFramesPerSecond: Int {
        get { state.withLock { $0.preferredFramesPerSecond } }
        set {
            state.withLock {
                $0.preferredFramesPerSecond = max(0, newValue)
                $0.preference = .framesPerSecond(max(0, newValue))
            }
            reschedule()
        }
    }

    /// The range of callback rates wanted, as Apple's `preferredFrameRateRange` (default ``CAFrameRateRange/default``,
    /// the display's rate): the link calls back at the factor of the refresh rate inside the range closest to its
    /// `preferred` rate (or its `maximum` without one); with no factor inside, at the one closest to it.
    open var preferredFrameRateRange: CAFrameRateRange {
        get { state.withLock { $0.preferredFrameRateRange } }
        set {
            state.withLock {
                $0.preferredFrameRateRange = newValue
                $0.preference = .range(newValue)
            }
            reschedule()
        }
    }

    // MARK: Run loops

    /// Calls back on `runloop` while it runs in `mode` (`.common` covers `.default`), as Apple's
    /// `add(to:forMode:)`. The run loop keeps the link until ``invalidate()`` or ``remove(from:forMode:)``. Adding
    /// it for a mode it has is a no-op; adding it to a second run loop traps.
    open func add(to runloop: RunLoop, forMode mode: RunLoop.Mode) {
        let added: Timer? = state.withLock { s in
            guard s.action != nil, s.timers[mode] == nil else { return nil }
            if let existing = s.runLoop, existing !== runloop {
                apiViolation("A CADisplayLink can be added to one run loop only; remove it from the first one.")
            }
            s.runLoop = runloop
            if s.grid == nil {
                s.grid = makeGrid(s.preference)
                s.lastTick = 0
            }
            let timer = makeTimer(s.grid!)
            s.timers[mode] = timer
            return timer
        }
        if let added { runloop.add(added, forMode: mode) }
    }

    /// Stops calling back on `runloop` in `mode`, as Apple's `remove(from:forMode:)`; once removed from every mode,
    /// the run loop lets the link go (and the link may be added to another one).
    open func remove(from runloop: RunLoop, forMode mode: RunLoop.Mode) {
        let removed: Timer? = state.withLock { s in
            guard s.runLoop === runloop, let timer = s.timers.removeValue(forKey: mode) else { return nil }
            if s.timers.isEmpty {
                s.runLoop = nil
                s.grid = nil
            }
            return timer
        }
        removed?.invalidate()
    }

    /// Removes the link from every run loop mode and releases its target, as Apple's `invalidate()`: no callback
    /// starts afterwards. Safe to call from inside the callback and more than once.
    open func invalidate() {
        let (timers, action): ([Timer], ((CADisplayLink) -> Void)?) = state.withLock { s in
            defer {
                s.action = nil
                s.timers = [:]
                s.runLoop = nil
                s.grid = nil
            }
            return (Array(s.timers.values), s.action)
        }
        for timer in timers { timer.invalidate() }
        withExtendedLifetime(action) {}  // the target goes here, outside the lock
    }

    // MARK: Ticking

    /// The grid for the current display and preference, starting now.
    private func makeGrid(_ preference: Preference) -> Grid {
        let refresh = CVDisplayLink.refreshRate(of: nil) ?? CVDisplayLink.nominalRefreshRate
        let every = Self.refreshesPerCallback(refreshRate: refresh, preference: preference)
        return Grid(
            origin: CVGetCurrentHostTime(), period: Double(every) * 1e9 / Double(refresh),
            refreshPeriod: 1 / Double(refresh))
    }

    /// A repeating run-loop timer ticking on `grid`, its first fire at the grid's next tick.
    private func makeTimer(_ grid: Grid) -> Timer {
        let now = CVGetCurrentHostTime()
        let elapsed = Double(now &- grid.origin)
        let next = (elapsed / grid.period).rounded(.down) + 1
        let wait = (next * grid.period - elapsed) / 1e9
        let link = UncheckedLink(self)
        let timer = Timer(fire: Date(timeIntervalSinceNow: wait), interval: grid.period / 1e9, repeats: true) { _ in
            link.link.tick()
        }
        timer.tolerance = 0
        return timer
    }

    /// Starts the timers again on a new grid (the preferred rate changed while on a run loop).
    private func reschedule() {
        let change: (RunLoop, [(RunLoop.Mode, Timer, Timer)])? = state.withLock { s in
            guard let runLoop = s.runLoop, !s.timers.isEmpty else { return nil }
            let grid = makeGrid(s.preference)
            s.grid = grid
            s.lastTick = 0
            var swaps: [(RunLoop.Mode, Timer, Timer)] = []
            for (mode, old) in s.timers {
                let timer = makeTimer(grid)
                s.timers[mode] = timer
                swaps.append((mode, old, timer))
            }
            return (runLoop, swaps)
        }
        guard let (runLoop, swaps) = change else { return }
        for (mode, old, new) in swaps {
            old.invalidate()
            runLoop.add(new, forMode: mode)
        }
    }

    /// One timer firing (on the run loop's thread): calls back for its grid tick unless that tick was called back
    /// already (another mode's timer) or the link is paused.
    private func tick() {
        let now = CVGetCurrentHostTime()
        let action: ((CADisplayLink) -> Void)? = state.withLock { s in
            guard let action = s.action, let grid = s.grid, now >= grid.origin else { return nil }
            // The grid tick at or before now: a timer that fires late (a busy run loop) calls back for the tick it is
            // late for, on the grid, with the next one as `targetTimestamp` (rounding to the nearest tick took one
            // more than half a period late for the coming tick, `timestamp` then off the grid and in the future). A
            // millisecond's grace counts a timer that fires just before its tick as that tick's (the run loop fired
            // them up to 0.7 ms early under load).
            let n = Int64(((Double(now - grid.origin) + 1e6) / grid.period).rounded(.down))
            guard n > s.lastTick else { return nil }
            s.lastTick = n
            guard !s.isPaused else { return nil }
            let tickTime = Double(grid.origin) / 1e9 + Double(n) * grid.period / 1e9
            // On the grid: at most the millisecond's grace ahead of the host clock.
            s.timestamp = tickTime
            s.targetTimestamp = tickTime + grid.period / 1e9
            s.duration = grid.refreshPeriod
            return action
        }
        action?(self)
    }

    /// Refreshes between callbacks at `refreshRate` Hz for `preference`: the factor of the refresh rate closest to
    /// the wanted rate (inside a range's bounds when one is), the higher rate on a tie.
    static func refreshesPerCallback(refreshRate: Int64, preference: Preference) -> Int64 {
        let refresh = Double(max(1, refreshRate))
        let (target, low, high): (Double, Double, Double)
        switch preference {
        case .framesPerSecond(let fps):
            guard fps > 0 else { return 1 }
            (target, low, high) = (Double(fps), 0, 0)
        case .range(let range):
            let wanted = Double(range.preferred ?? 0) > 0 ? Double(range.preferred!) : Double(range.maximum)
            guard wanted > 0 else { return 1 }
            (target, low, high) = (wanted, Double(range.minimum), Double(range.maximum))
        }
        var best: (every: Int64, inside: Bool, distance: Double) = (1, false, .infinity)
        for every in 1...max(1, refreshRate) {
            let rate = refresh / Double(every)
            let inside = (low <= 0 || rate >= low - 1e-3) && (high <= 0 || rate <= high + 1e-3)
            let distance = abs(rate - target)
            if (inside && !best.inside) || (inside == best.inside && distance < best.distance - 1e-9) {
                best = (every, inside, distance)
            }
            if rate < target && rate < low { break }
        }
        return best.every
    }
}

/// The run loop's reference to its link (a timer's closure must be `Sendable`; the link is used only through its
/// lock).
private struct UncheckedLink: @unchecked Sendable {
    let link: CADisplayLink
    init(_ link: CADisplayLink) { self.link = link }
}
