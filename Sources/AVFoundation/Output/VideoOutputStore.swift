import Foundation
import OAVFLocking
import PlaybackEngine

/// The pictures one ``AVPlayerItemVideoOutput`` holds: a video sink on the item's engine.
///
/// The engine thread hands each presented picture over in ``present(_:itemTime:session:)`` — a short
/// lock-protected append, never a wait, so a slow client cannot hold up playback. Clients take pictures out on
/// their own threads. Only the newest ``capacity`` pictures are kept; a picture is dropped once a later one is
/// acquired.
final class VideoOutputStore: VideoFrameSink, @unchecked Sendable {
    /// One picture.
    struct Entry {
        /// Increasing per store; orders pictures and records acquisition.
        var id: UInt64
        /// The item time it is shown from.
        var time: CMTime
        /// The decoder's buffer.
        var buffer: CVPixelBuffer
        /// The buffer in the output's format, once converted.
        var converted: CVPixelBuffer?
    }

    /// Pictures kept at most (the current one and a few after it).
    static let capacity = 4

    /// In real-time playback a picture arrives up to 50 ms (three 60 Hz refreshes) before it is due, so a display
    /// link asking about its next refresh finds the picture for it.
    var presentationLeadTime: Double { 0.05 }

    /// Set once by the output's initializer, before the store is registered with an engine.
    var owner: WeakOutput?

    /// Guards every `var` below. The engine thread appends; the app's threads (often a display link) take pictures. Not
    /// an engine command: a client pulling once per refresh must not wait for the engine's loop.
    private let lock = ConditionLock()
    /// The session pictures are accepted from (the item's, while it belongs to a player).
    private var session: ItemSession?
    private var entries: [Entry] = []
    private var nextID: UInt64 = 1
    /// The newest acquired picture's id (0: none).
    private var acquired: UInt64 = 0
    /// Whether pictures arrived since the last flush (a flush of an empty sequence is not reported).
    private var sequenceStarted = false
    /// A pending `requestNotificationOfMediaDataChange`.
    private var notificationRequested = false
    /// When set (tests), each picture's item time and the host time it arrived at, the newest 1024.
    private var arrivals: [(itemTime: CMTime, host: UInt64)]?

    /// Accepts pictures from `newSession` (nil: from nothing) and forgets those held.
    func setSession(_ newSession: ItemSession?) {
        lock.withLock {
            guard session !== newSession else { return }
            session = newSession
            entries = []
            acquired = 0
            sequenceStarted = false
        }
    }

    // MARK: Engine thread

    func present(_ frame: VideoFrame, itemTime: CMTime, session from: ItemSession) {
        let notify: Bool = lock.withLock {
            guard from === session else { return false }
            // A picture at or before ones held restarts the sequence there.
            entries.removeAll { $0.time >= itemTime }
            entries.append(Entry(id: nextID, time: itemTime, buffer: frame.pixelBuffer))
            if arrivals != nil {
                if arrivals!.count >= 1024 { arrivals!.removeFirst() }
                arrivals!.append((itemTime, CVGetCurrentHostTime()))
            }
            nextID += 1
            if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
            sequenceStarted = true
            defer { notificationRequested = false }
            return notificationRequested
        }
        let output = owner?.output
        output?.picturesArrived(frame.pixelBuffer)
        if notify { output?.notifyMediaDataWillChange() }
    }

    func flush(session current: ItemSession?) {
        let report: Bool = lock.withLock {
            let report = sequenceStarted
            entries = []
            acquired = 0
            sequenceStarted = false
            return report
        }
        if report { owner?.output?.notifySequenceWasFlushed() }
    }

    /// Starts recording when pictures arrive (tests: a picture that came after the pull asking for it was late,
    /// not lost).
    func recordArrivals() {
        lock.withLock { arrivals = arrivals ?? [] }
    }

    /// Item time and host time (nanoseconds) of each picture's arrival since ``recordArrivals()``, oldest first.
    var arrivalLog: [(itemTime: CMTime, host: UInt64)] {
        lock.withLock { arrivals ?? [] }
    }

    // MARK: Client threads

    /// The index of the picture to show at `time`: the latest starting at or before it.
    private func index(at time: CMTime) -> Int? {
        entries.lastIndex { $0.time <= time }
    }

    func hasNewFrame(at time: CMTime) -> Bool {
        lock.withLock {
            guard let i = index(at: time) else { return false }
            return entries[i].id > acquired
        }
    }

    /// The picture for `time`, marked acquired; earlier pictures are dropped.
    func acquire(at time: CMTime) -> Entry? {
        lock.withLock {
            guard let i = index(at: time) else { return nil }
            entries.removeFirst(i)
            acquired = max(acquired, entries[0].id)
            return entries[0]
        }
    }

    /// The pictures not acquired yet, oldest first (to convert ahead of their pulls).
    func notAcquired() -> [Entry] {
        lock.withLock { entries.filter { $0.id > acquired && $0.converted == nil } }
    }

    /// The converted buffer of picture `id`, if it is still held and was converted.
    func converted(for id: UInt64) -> CVPixelBuffer? {
        lock.withLock { entries.first { $0.id == id }?.converted }
    }

    /// Keeps the converted buffer of picture `id`, so copying it again returns the same buffer.
    func setConverted(_ buffer: CVPixelBuffer, for id: UInt64) {
        lock.withLock {
            if let i = entries.firstIndex(where: { $0.id == id }) { entries[i].converted = buffer }
        }
    }

    /// Records a notification request; true when a picture not yet acquired, shown from `horizon` at the latest, is
    /// already there (notify now).
    func requestNotification(dueBy horizon: CMTime) -> Bool {
        lock.withLock {
            if entries.contains(where: { $0.id > acquired && $0.time <= horizon }) { return true }
            notificationRequested = true
            return false
        }
    }
}
