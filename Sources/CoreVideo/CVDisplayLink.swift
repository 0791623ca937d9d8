import CoreGraphics
import Foundation
import OAVFLocking

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The display-link output callback, as Apple's `CVDisplayLinkOutputCallback`: `(displayLink, inNow,
/// inOutputTime, flagsIn, flagsOut, displayLinkContext) -> CVReturn`.
///
/// Differs from Apple: a Swift function type, not `@convention(c)` — `CVDisplayLink` and `CVTimeStamp` are Swift
/// types here, which C function pointers cannot carry. Global functions and non-capturing closures written for
/// Apple's API are accepted unchanged (so are capturing closures). Called on the link's thread.
public typealias CVDisplayLinkOutputCallback = (
    _ displayLink: CVDisplayLink, _ inNow: UnsafePointer<CVTimeStamp>, _ inOutputTime: UnsafePointer<CVTimeStamp>,
    _ flagsIn: CVOptionFlags, _ flagsOut: UnsafeMutablePointer<CVOptionFlags>,
    _ displayLinkContext: UnsafeMutableRawPointer?
) -> CVReturn

/// The block form of the output callback, as Apple's `CVDisplayLinkOutputHandler`. Called on the link's thread.
public typealias CVDisplayLinkOutputHandler = (
    _ displayLink: CVDisplayLink, _ inNow: UnsafePointer<CVTimeStamp>, _ inOutputTime: UnsafePointer<CVTimeStamp>,
    _ flagsIn: CVOptionFlags, _ flagsOut: UnsafeMutablePointer<CVOptionFlags>
) -> CVReturn

/// A timer that calls back once per display refresh, as Apple's `CVDisplayLink` (macOS; a CF type there, a class
/// here — ARC manages it, there is no `CVDisplayLinkRetain/Release`).
///
/// Differs from Apple:
/// - A link ticks at its display's refresh rate (`videoTimeScale` the rate in Hz, `videoRefreshPeriod` 1) on the host
///   clock, not on the display's vsync. The rate comes from the window system (SDL's current display mode, once
///   `import AVFoundation` code has created a player or a video output); without a display, or before that, a link
///   runs at a nominal 60 Hz.
/// - Ticks come from a dedicated thread ("oavf.displaylink") sleeping to absolute deadlines
///   (`clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)`) so errors do not accumulate; it asks for `SCHED_FIFO` and
///   stays at normal priority when the system refuses. Deadlines missed by a late wake-up are skipped, not
///   called back late in a burst.
/// - `inNow` is the tick's scheduled host time; `inOutputTime` is the next tick (`inNow` + one period), the time
///   the picture prepared now would be shown.
///
/// Thread safety: every function may be called from any thread, including from inside the callback.
/// Callbacks never overlap (also across a stop and restart). ``CVDisplayLinkStop(_:)`` waits for a callback in
/// flight on another thread; called from inside the callback it returns at once and no further callback follows.
/// A link that is released while running stops at its next tick.
public final class CVDisplayLink: @unchecked Sendable {
    /// What the link calls.
    private enum Output {
        case callback(CVDisplayLinkOutputCallback, UnsafeMutableRawPointer?)
        case handler(CVDisplayLinkOutputHandler)
    }

    /// Nominal refresh rate (Hz) while no display is known.
    package static let nominalRefreshRate: Int64 = 60

    /// Guards `displayModeProvider`. Set once by the window layer, read by every link. No engine here.
    private static let providerLock = ConditionLock()
    /// Guarded by `providerLock`: the refresh rate (Hz) of a display (nil: the main one), nil when not known.
    nonisolated(unsafe) private static var displayModeProvider: (@Sendable (CGDirectDisplayID?) -> Int?)?

    /// Installs where display refresh rates come from (the platform layer: SDL's display modes); nil removes it.
    /// Returns the provider it replaces.
    @discardableResult
    package static func setDisplayRefreshRateProvider(
        _ provider: (@Sendable (CGDirectDisplayID?) -> Int?)?
    ) -> (@Sendable (CGDirectDisplayID?) -> Int?)? {
        providerLock.withLock {
            defer { displayModeProvider = provider }
            return displayModeProvider
        }
    }

    /// The refresh rate of `display` (nil: the main one): the provider's, else nominal when there is no provider;
    /// nil when the provider knows no such display.
    package static func refreshRate(of display: CGDirectDisplayID?) -> Int64? {
        guard let provider = providerLock.withLock({ displayModeProvider }) else { return nominalRefreshRate }
        guard let hz = provider(display), hz > 0 else { return display == nil ? nominalRefreshRate : nil }
        return Int64(hz)
    }
    /// Nanoseconds per second.
    static let nanosecondsPerSecond: UInt64 = 1_000_000_000

    /// Guards every `var` below (held briefly, never while calling out); broadcast when a callback ends, for ``stop()``
    /// and a restarted run's thread waiting for it. App threads start and stop the link; the link's thread runs
    /// callbacks. No engine here: a display link is the app's timer.
    private let lock = ConditionLock()
    private var output: Output?
    private var running = false
    /// Bumped by every start; a thread whose generation is not current exits.
    private var generation: UInt64 = 0
    /// Host time of tick 0 of the current (or last) run.
    private var origin: UInt64 = 0
    /// Ticks per second: the display's refresh rate.
    private var refreshRate: Int64
    /// The display the link follows.
    private var display: CGDirectDisplayID
    /// The thread inside a callback, if any.
    private var callbackThread: pthread_t?
    /// Callbacks started over the link's life: ``stop()`` waits for the one in flight, not for later ones.
    private var callbacksStarted: UInt64 = 0
    /// Actual wake-ups of the current run: first and last host times and how many.
    private var firstWake: UInt64 = 0
    private var lastWake: UInt64 = 0
    private var wakes: UInt64 = 0

    init(display: CGDirectDisplayID = CGMainDisplayID(), refreshRate: Int64 = CVDisplayLink.nominalRefreshRate) {
        self.display = display
        self.refreshRate = refreshRate
    }

    /// The display the link follows.
    var currentDisplay: CGDirectDisplayID {
        lock.lock()
        defer { lock.unlock() }
        return display
    }

    /// Ticks per second.
    var rate: Int64 {
        lock.lock()
        defer { lock.unlock() }
        return refreshRate
    }

    /// Follows `newDisplay` at `rate` Hz; a running link goes on at the new rate from now.
    func setDisplay(_ newDisplay: CGDirectDisplayID, rate newRate: Int64) {
        lock.lock()
        display = newDisplay
        guard newRate != refreshRate else {
            lock.unlock()
            return
        }
        refreshRate = newRate
        guard running else {
            lock.unlock()
            return
        }
        lock.unlock()
        // A new run at the new rate (callbacks still never overlap: `fire` waits for one in flight).
        restartRun()
    }

    /// How the link thread refers to its link: weakly, so a released link stops.
    private final class WeakReference: @unchecked Sendable {
        /// Written once in `init`.
        weak var link: CVDisplayLink?
        init(_ link: CVDisplayLink) { self.link = link }
    }

    /// Host-time nanoseconds from tick 0 to tick `n` (exact, no accumulated rounding).
    static func offset(ofTick n: Int64, rate: Int64) -> UInt64 {
        let (high, low) = UInt64(n).multipliedFullWidth(by: nanosecondsPerSecond)
        return UInt64(rate).dividingFullWidth((high, low)).quotient
    }

    private func setOutput(_ newOutput: Output?) {
        lock.lock()
        output = newOutput
        lock.unlock()
    }

    func setCallback(_ callback: CVDisplayLinkOutputCallback?, _ userInfo: UnsafeMutableRawPointer?) {
        setOutput(callback.map { .callback($0, userInfo) })
    }

    func setHandler(_ handler: @escaping CVDisplayLinkOutputHandler) {
        setOutput(.handler(handler))
    }

    var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return running
    }

    func start() -> CVReturn {
        lock.lock()
        guard output != nil else {
            lock.unlock()
            return kCVReturnDisplayLinkCallbacksNotSet
        }
        guard !running else {
            lock.unlock()
            return kCVReturnDisplayLinkAlreadyRunning
        }
        running = true
        lock.unlock()
        restartRun()
        return kCVReturnSuccess
    }

    /// Starts a run (a new generation, tick 0 now, at the current rate) on a new link thread; an older run's thread
    /// exits at its next tick.
    private func restartRun() {
        lock.lock()
        generation &+= 1
        let run = generation
        let start = CVGetCurrentHostTime()
        let rate = refreshRate
        origin = start
        (firstWake, lastWake, wakes) = (0, 0, 0)
        lock.unlock()
        let reference = WeakReference(self)
        let thread = Thread {
            Self.nameCurrentThread()
            Self.tickLoop(reference, generation: run, origin: start, rate: rate)
        }
        thread.qualityOfService = .userInteractive
        thread.start()
    }

    func stop() -> CVReturn {
        lock.lock()
        guard running else {
            lock.unlock()
            return kCVReturnDisplayLinkNotRunning
        }
        running = false
        if let thread = callbackThread, pthread_equal(thread, pthread_self()) == 0 {
            // Wait for the callback in flight on the link thread (this run starts no other after
            // `running = false`; a restart's callbacks are not waited for).
            let inFlight = callbacksStarted
            while callbackThread != nil, callbacksStarted == inFlight {
                lock.wait()
            }
        }
        lock.unlock()
        return kCVReturnSuccess
    }

    /// The average period between actual wake-ups of the current run (seconds), 0 when not running or before two
    /// ticks.
    var actualPeriod: Double {
        lock.lock()
        defer { lock.unlock() }
        guard running, wakes >= 2 else { return 0 }
        return Double(lastWake - firstWake) / Double(wakes - 1) / Double(Self.nanosecondsPerSecond)
    }

    /// A time stamp for tick `n` of a run starting at `origin`.
    static func timeStamp(tick n: Int64, origin: UInt64, rate: Int64) -> CVTimeStamp {
        CVTimeStamp(
            version: 0, videoTimeScale: Int32(rate), videoTime: n, hostTime: origin + offset(ofTick: n, rate: rate),
            rateScalar: 1, videoRefreshPeriod: 1, smpteTime: CVSMPTETime(),
            flags: CVTimeStampFlags([.videoHostTimeValid, .rateScalarValid, .videoRefreshPeriodValid]).rawValue,
            reserved: 0)
    }

    /// The time stamp of "now" (`CVDisplayLinkGetCurrentTime`): host time now, video time in ticks since the
    /// last start.
    func currentTime() -> CVTimeStamp {
        let now = CVGetCurrentHostTime()
        lock.lock()
        let (start, rate) = (origin, refreshRate)
        lock.unlock()
        let ticks = now > start ? Int64((now - start) * UInt64(rate) / Self.nanosecondsPerSecond) : 0
        var stamp = Self.timeStamp(tick: ticks, origin: start, rate: rate)
        stamp.hostTime = now
        return stamp
    }

    // MARK: Link thread

    /// `pthread_setname_np`, a GNU extension Glibc's module map hides from Swift; looked up once.
    private static let setThreadName: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_setname_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32).self)
    }()

    /// Names the link thread for the kernel (top, gdb, /proc): `oavf.displaylink` in the 15 bytes it keeps. (Setting
    /// `Thread.name` before `start()` never reaches the kernel, and from inside the thread it races `start()`.)
    private static func nameCurrentThread() {
        _ = setThreadName?(pthread_self(), "oavf.displaylin")
    }

    /// Asks for real-time scheduling; keeps the normal policy when refused (unprivileged processes).
    private static func raisePriority() {
        var parameters = sched_param()
        parameters.sched_priority = 1
        _ = pthread_setschedparam(pthread_self(), Int32(SCHED_FIFO), &parameters)
    }

    /// Sleeps until host time `deadline` (absolute, so oversleeping one tick does not delay the next).
    private static func sleep(until deadline: UInt64) {
        var time = timespec(
            tv_sec: Int(deadline / nanosecondsPerSecond), tv_nsec: Int(deadline % nanosecondsPerSecond))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &time, nil) == EINTR {}
    }

    /// The run of one start: ticks until the link stops, restarts (a newer generation) or goes away.
    private static func tickLoop(_ reference: WeakReference, generation: UInt64, origin: UInt64, rate: Int64) {
        raisePriority()
        var tick: Int64 = 1
        while true {
            sleep(until: origin + offset(ofTick: tick, rate: rate))
            guard let link = reference.link,
                link.fire(tick: tick, generation: generation, origin: origin, rate: rate)
            else {
                return
            }
            // Skip deadlines already gone (a late wake-up or a slow callback).
            let now = CVGetCurrentHostTime()
            tick += 1
            while origin + offset(ofTick: tick, rate: rate) <= now { tick += 1 }
        }
    }

    /// Calls the output for tick `n`; false when this run is over.
    private func fire(tick n: Int64, generation run: UInt64, origin: UInt64, rate: Int64) -> Bool {
        lock.lock()
        // A callback of an earlier run may still be running (the link was restarted from inside it, or stopped
        // from inside it and restarted elsewhere): wait for it, so callbacks never overlap.
        while callbackThread != nil {
            lock.wait()
        }
        guard running, generation == run, let output else {
            lock.unlock()
            return false
        }
        let wake = CVGetCurrentHostTime()
        if wakes == 0 { firstWake = wake }
        lastWake = wake
        wakes += 1
        callbackThread = pthread_self()
        callbacksStarted &+= 1
        lock.unlock()
        var now = Self.timeStamp(tick: n, origin: origin, rate: rate)
        var next = Self.timeStamp(tick: n + 1, origin: origin, rate: rate)
        var flagsOut: CVOptionFlags = 0
        switch output {
        case .callback(let function, let context):
            _ = function(self, &now, &next, 0, &flagsOut, context)
        case .handler(let handler):
            _ = handler(self, &now, &next, 0, &flagsOut)
        }
        lock.lock()
        callbackThread = nil
        lock.broadcast()
        let goOn = running && generation == run
        lock.unlock()
        return goOn
    }
}

// MARK: - C-style functions

/// Creates a display link for the active displays, as Apple's `CVDisplayLinkCreateWithActiveCGDisplays`: it follows
/// the main display at its refresh rate (60 Hz without a display). Always succeeds.
public func CVDisplayLinkCreateWithActiveCGDisplays(
    _ displayLinkOut: UnsafeMutablePointer<CVDisplayLink?>
) -> CVReturn {
    let rate = CVDisplayLink.refreshRate(of: nil) ?? CVDisplayLink.nominalRefreshRate
    displayLinkOut.pointee = CVDisplayLink(display: CGMainDisplayID(), refreshRate: rate)
    return kCVReturnSuccess
}

/// Creates a display link for `displayID`, as Apple's `CVDisplayLinkCreateWithCGDisplay`;
/// `kCVReturnInvalidDisplay` when the window system knows no such display.
public func CVDisplayLinkCreateWithCGDisplay(
    _ displayID: CGDirectDisplayID, _ displayLinkOut: UnsafeMutablePointer<CVDisplayLink?>
) -> CVReturn {
    guard let rate = CVDisplayLink.refreshRate(of: displayID) else {
        displayLinkOut.pointee = nil
        return kCVReturnInvalidDisplay
    }
    displayLinkOut.pointee = CVDisplayLink(display: displayID, refreshRate: rate)
    return kCVReturnSuccess
}

/// Makes the link follow `displayID` at its refresh rate, as Apple's `CVDisplayLinkSetCurrentCGDisplay` (a running
/// link goes on at the new rate); `kCVReturnInvalidDisplay` when the window system knows no such display.
@discardableResult
public func CVDisplayLinkSetCurrentCGDisplay(_ displayLink: CVDisplayLink, _ displayID: CGDirectDisplayID) -> CVReturn {
    guard let rate = CVDisplayLink.refreshRate(of: displayID) else { return kCVReturnInvalidDisplay }
    displayLink.setDisplay(displayID, rate: rate)
    return kCVReturnSuccess
}

/// The display the link follows, as Apple's `CVDisplayLinkGetCurrentCGDisplay`.
public func CVDisplayLinkGetCurrentCGDisplay(_ displayLink: CVDisplayLink) -> CGDirectDisplayID {
    displayLink.currentDisplay
}

/// Sets the function called once per refresh (nil removes it), as Apple's `CVDisplayLinkSetOutputCallback`.
/// Replaces an output handler.
@discardableResult
public func CVDisplayLinkSetOutputCallback(
    _ displayLink: CVDisplayLink, _ callback: CVDisplayLinkOutputCallback?, _ userInfo: UnsafeMutableRawPointer?
) -> CVReturn {
    displayLink.setCallback(callback, userInfo)
    return kCVReturnSuccess
}

/// Sets the closure called once per refresh, as Apple's `CVDisplayLinkSetOutputHandler`. Replaces an output
/// callback.
@discardableResult
public func CVDisplayLinkSetOutputHandler(
    _ displayLink: CVDisplayLink, _ handler: @escaping CVDisplayLinkOutputHandler
) -> CVReturn {
    displayLink.setHandler(handler)
    return kCVReturnSuccess
}

/// Starts the link's thread, as Apple's `CVDisplayLinkStart`: `kCVReturnDisplayLinkAlreadyRunning` when running,
/// `kCVReturnDisplayLinkCallbacksNotSet` without a callback. The first callback comes one period later.
@discardableResult
public func CVDisplayLinkStart(_ displayLink: CVDisplayLink) -> CVReturn {
    displayLink.start()
}

/// Stops the link, as Apple's `CVDisplayLinkStop`: `kCVReturnDisplayLinkNotRunning` when stopped. Waits for a
/// callback in flight on the link thread; from inside the callback it returns at once.
@discardableResult
public func CVDisplayLinkStop(_ displayLink: CVDisplayLink) -> CVReturn {
    displayLink.stop()
}

/// Whether the link is running, as Apple's `CVDisplayLinkIsRunning`.
public func CVDisplayLinkIsRunning(_ displayLink: CVDisplayLink) -> Bool {
    displayLink.isRunning
}

/// The nominal refresh period, as Apple's `CVDisplayLinkGetNominalOutputVideoRefreshPeriod`: one period of the
/// link's display (`CVTime(timeValue: 1, timeScale: 60, flags: 0)` at 60 Hz).
public func CVDisplayLinkGetNominalOutputVideoRefreshPeriod(_ displayLink: CVDisplayLink) -> CVTime {
    CVTime(timeValue: 1, timeScale: Int32(displayLink.rate), flags: 0)
}

/// The measured refresh period in seconds (mean interval between the link thread's actual wake-ups), as Apple's
/// `CVDisplayLinkGetActualOutputVideoRefreshPeriod`; 0 when not running or before two ticks.
public func CVDisplayLinkGetActualOutputVideoRefreshPeriod(_ displayLink: CVDisplayLink) -> Double {
    displayLink.actualPeriod
}

/// The current time of the link, as Apple's `CVDisplayLinkGetCurrentTime`: host time now, video time in refresh
/// periods since the link last started (0 if it never did).
@discardableResult
public func CVDisplayLinkGetCurrentTime(
    _ displayLink: CVDisplayLink, _ outTime: UnsafeMutablePointer<CVTimeStamp>
) -> CVReturn {
    outTime.pointee = displayLink.currentTime()
    return kCVReturnSuccess
}
