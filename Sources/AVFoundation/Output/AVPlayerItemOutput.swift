import Foundation
import OAVFLocking
import PlaybackEngine

/// The abstract base of the outputs that take media from a player item (Apple's `AVPlayerItemOutput`); add one
/// with `AVPlayerItem.add(_:)`.
///
/// Outputs vend only the current sample and samples readily available after it; earlier samples are discarded.
///
/// Host time here is `CLOCK_MONOTONIC` — the time base of `CVGetCurrentHostTime()`, `CMClockGetHostTimeClock()`
/// and display links. When the player runs on a `VirtualClock` (`AVPlayer.sourceClock`, an OpenAVFoundation
/// extension), host time is that clock's time instead, so a test can convert its virtual "now" to item time.
///
/// Thread-safe: every member may be called from any thread (typically a display link's thread).
open class AVPlayerItemOutput: NSObject, @unchecked Sendable {
    /// Where the output takes its media from: the item's engine session, while the item belongs to a player.
    struct Binding {
        var session: ItemSession
        var engine: PlayerEngine
    }

    /// Guards every `var` below. Set by the app on any thread (delegate, suppression), read by the item's feeds on the
    /// engine thread. Public type: it keeps its lock for what it publishes.
    let outputLock = ConditionLock()
    /// The item the output was added to.
    private weak var item: AVPlayerItem?
    private var binding: Binding?
    private var suppresses = false

    /// An output attached to nothing (Apple: only subclasses are used).
    public override init() {
        super.init()
    }

    // MARK: Time

    /// The item time corresponding to a host time in seconds (as `CACurrentMediaTime()` returns), as Apple's
    /// `itemTime(forHostTime:)`.
    ///
    /// Differs from Apple: host seconds are `CLOCK_MONOTONIC` seconds (`Double(CVGetCurrentHostTime()) / 1e9`), or
    /// the virtual clock's seconds for a player on a `VirtualClock`. `.invalid` while the item is not the current
    /// item of a player.
    open func itemTime(forHostTime hostTimeInSeconds: CFTimeInterval) -> CMTime {
        guard hostTimeInSeconds.isFinite else { return .invalid }
        return itemTime(forHostNanoseconds: UInt64((max(0, hostTimeInSeconds) * 1e9).rounded()))
    }

    /// The item time corresponding to a Core Video time stamp (a display link's `inOutputTime`), as Apple's
    /// `itemTime(for:)`: its `hostTime` (nanoseconds here) is converted; `.invalid` when the stamp has no valid
    /// host time or the item is not current.
    open func itemTime(for timestamp: CVTimeStamp) -> CMTime {
        guard CVTimeStampFlags(rawValue: timestamp.flags).contains(.hostTimeValid) else { return .invalid }
        return itemTime(forHostNanoseconds: timestamp.hostTime)
    }

    /// The item time corresponding to a host time in system units, as Apple's `itemTime(forMachAbsoluteTime:)`.
    ///
    /// Differs from Apple: there is no `mach_absolute_time` on Linux; the argument is host time in nanoseconds
    /// (`CVGetCurrentHostTime()`), or the virtual clock's nanoseconds for a player on a `VirtualClock`.
    open func itemTime(forMachAbsoluteTime machAbsoluteTime: Int64) -> CMTime {
        itemTime(forHostNanoseconds: UInt64(max(0, machAbsoluteTime)))
    }

    /// Whether the player should not render media of this output's type itself, as Apple's
    /// `suppressesPlayerRendering` (default false).
    ///
    /// For a video output on the player's current item, `true` keeps the player's `AVPlayerLayer` from showing
    /// the video (the output is then the only consumer); audio is not affected.
    open var suppressesPlayerRendering: Bool {
        get { outputLock.withLock { suppresses } }
        set { outputLock.withLock { suppresses = newValue } }
    }

    /// The item time at host time `host` (nanoseconds), `.invalid` when unbound or not current.
    func itemTime(forHostNanoseconds host: UInt64) -> CMTime {
        guard let binding = currentBinding else { return .invalid }
        return binding.engine.itemTime(forHost: host, session: binding.session) ?? .invalid
    }

    // MARK: Item side (internal)

    var currentBinding: Binding? { outputLock.withLock { binding } }

    /// The item the output belongs to.
    var attachedItem: AVPlayerItem? { outputLock.withLock { item } }

    /// Joins `item`; traps when the output belongs to another item (Apple raises).
    func join(_ newItem: AVPlayerItem) {
        outputLock.withLock {
            if let owner = item, owner !== newItem {
                apiViolation("An AVPlayerItemOutput cannot be added to more than one AVPlayerItem (\(owner)).")
            }
            item = newItem
        }
    }

    /// Leaves its item (and its engine).
    func leave() {
        outputLock.withLock { item = nil }
        rebind(to: nil)
    }

    /// Takes media from `newBinding` (nil: from nothing). Called by the item when it joins or leaves a player.
    func rebind(to newBinding: Binding?) {
        let old: Binding? = outputLock.withLock {
            let old = binding
            binding = newBinding
            return old
        }
        if old?.session !== newBinding?.session || old?.engine !== newBinding?.engine {
            bindingChanged(from: old, to: newBinding)
        }
    }

    /// Subclasses connect to the engine here (any thread, no lock held).
    func bindingChanged(from old: Binding?, to new: Binding?) {}
}
