import Foundation

/// Prepares items off the engine thread: one joinable thread ("oavf.prepare") per item being opened, which reports
/// back through the engine's mailbox (``EngineCommand/Action/prepared(_:error:)``).
///
/// Engine thread only (the threads it starts touch only their session and the mailbox).
final class ItemPreparer {
    private let mailbox: EngineMailbox
    private let hostNow: @Sendable () -> UInt64
    /// The clock the sources opened run their schedules on (``MediaClock/forSources(of:)``).
    private let sourceClock: MediaClock
    /// What the items prepared measured of their servers, for the next ones (``BandwidthHistory``).
    private let bandwidthHistory = BandwidthHistory()
    /// Running preparation threads, by session.
    private var threads: [ObjectIdentifier: WorkerThread] = [:]

    init(mailbox: EngineMailbox, hostNow: @escaping @Sendable () -> UInt64, sourceClock: MediaClock) {
        self.mailbox = mailbox
        self.hostNow = hostNow
        self.sourceClock = sourceClock
    }

    /// Opens `session` (``ItemSession/prepare(sourceClock:)``) on its own thread.
    func start(_ session: ItemSession) {
        let id = ObjectIdentifier(session)
        threads.removeValue(forKey: id)?.join()
        threads[id] = WorkerThread(name: "oavf.prepare") { [mailbox, hostNow, sourceClock, bandwidthHistory] in
            var failure: (any Error)?
            do {
                try session.prepare(sourceClock: sourceClock, bandwidthHistory: bandwidthHistory)
            } catch {
                failure = error
            }
            mailbox.post(.prepared(session, error: failure), host: hostNow())
        }
    }

    /// The thread preparing `session` reported: it is ending; join it.
    func finished(_ session: ItemSession) {
        threads.removeValue(forKey: ObjectIdentifier(session))?.join()
    }

    /// Joins every preparation thread (their sessions must be stopped first, which interrupts them).
    func joinAll() {
        for thread in threads.values { thread.join() }
        threads.removeAll()
    }
}
