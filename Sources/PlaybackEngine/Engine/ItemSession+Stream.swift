import CoreMedia
import Foundation

// Item and container times, and what a streamed source publishes (HLS): its live window, program dates and network
// record, read from any thread.
extension ItemSession {
    /// The source's record of its transfers and failed requests (HLS); nil for files.
    package var networkLog: NetworkLog? { openedSource?.networkLog }

    /// The date ranges the presentation announces (HLS `EXT-X-DATERANGE`) as last known; empty for files.
    package var dateRanges: [DateRangeDescription] { openedSource?.dateRanges ?? [] }

    /// Calls `handler` after every change of ``dateRanges`` that the source reports (on its reading thread), also
    /// while playback waits; handlers added before the source opened are installed when it opens. Any thread.
    package func addDateRangesObserver(_ handler: @escaping @Sendable () -> Void) {
        lock.withLock { dateRangesObservers.append(handler) }
    }

    /// Routes the source's date-range changes to the observers (called once the source is open).
    func forwardDateRangeChanges(of source: any MediaSource) {
        source.observeDateRanges { [weak self] in
            guard let self else { return }
            for observer in self.lock.withLock({ self.dateRangesObservers }) { observer() }
        }
    }

    /// The source's variant caps, policy and decisions (HLS with variants); nil for a single rendition.
    package var variantControl: VariantControl? { openedSource?.variantControl }

    /// Whether the item is a live stream (its seekable range moves; it has no duration).
    package var isLive: Bool { openedSource?.liveWindow != nil }

    /// Whether a live source may reload its playlists (false: a paused item that may not use the network); the
    /// source keeps the last value, also across its opening.
    package func setLiveReloadsSuspended(_ suspended: Bool) {
        openedSource?.setLiveReloadsSuspended(suspended)
    }

    /// A live stream's target duration in seconds (HLS); nil otherwise.
    package var liveTargetDuration: Double? { openedSource?.liveTargetDuration }

    /// Where a live item plays from when nothing asked for a start: the earliest of its first decoded picture and
    /// sound, in item time — the place in the window of the segment its source started reading at (its time zero is
    /// the window's start). Nil for other items (they start at zero) and before anything was decoded. Read when it
    /// becomes ready or current, before anything of it is presented.
    package var liveStartTime: CMTime? {
        guard isLive else { return nil }
        let video = videoFrames?.peek().map { $0.element.pts }
        let audio = audioFrames?.peek().map { $0.element.pts }
        return [video, audio].compactMap { $0 }.filter(\.isNumeric).min().map(itemTime)
    }

    /// Item time of a stream timestamp.
    package func itemTime(_ streamTime: CMTime) -> CMTime {
        descriptor.timeOrigin == .zero ? streamTime : streamTime - descriptor.timeOrigin
    }

    /// Container time of an item time.
    package func containerTime(_ itemTime: CMTime) -> CMTime {
        descriptor.timeOrigin == .zero ? itemTime : itemTime + descriptor.timeOrigin
    }

    /// The date shown at `itemTime` (HLS program date time); nil for media without dates.
    package func date(atItemTime itemTime: CMTime) -> Date? {
        guard itemTime.isNumeric, let mapping = openedSource?.dateMapping else { return nil }
        return mapping.date(atSeconds: containerTime(itemTime).seconds)
    }

    /// The item time that shows `date`; nil for media without dates.
    package func itemTime(showing date: Date) -> CMTime? {
        guard let mapping = openedSource?.dateMapping else { return nil }
        return itemTime(CMTime(seconds: mapping.seconds(at: date), preferredTimescale: 1_000_000))
    }

    /// A Matroska `DURATION` tag's seconds (`HH:MM:SS.nnnnnnnnn`); nil when it is not one.
    static func seconds(ofDurationTag tag: String) -> Double? {
        let parts = tag.split(separator: ":")
        guard parts.count == 3, let h = Double(parts[0]), let m = Double(parts[1]), let s = Double(parts[2]),
            h >= 0, (0..<60).contains(m), (0..<60).contains(s)
        else { return nil }
        return h * 3600 + m * 60 + s
    }
}
