import Foundation
import PlaybackEngine

/// Turns a source's finished media transfers (its ``NetworkLog``) into samples for a ``BandwidthEstimator``: each
/// segment of the variant makes one sample with the rendition segments that finished since the previous one — their
/// bytes over the time during which at least one of them was under way (a video and an audio segment fetched side
/// by side share the link: each alone would measure half of it), weighted by the seconds of media they fetched. One
/// sample per variant segment, not one per look: a segment slowed by a throttle just lifted does not drag down the
/// fast one after it.
///
/// Real time, whatever clock the source's schedules run on: a transfer's duration is the network's (measured on the
/// monotonic host clock by ``HTTPBodyStream``), which a virtual clock cannot stand for — bytes arrive while it stands
/// still. A test controls the measured bit rate with the loopback server's throttle, or gives the source a network
/// transport that carries a bandwidth trace on its virtual clock (`SourceOptions.transport`): then every transfer is
/// timed on that clock.
///
/// Owned by the source's reading thread.
final class BandwidthMeter {
    private let log: NetworkLog
    private var cursor = 0
    /// Rendition transfers finished since the last variant segment's.
    private var pending: [NetworkLog.Transfer] = []
    private(set) var estimator = BandwidthEstimator()

    /// A meter of the transfers `log` records, whose estimate is `prior` until the first sample (see
    /// ``BandwidthEstimator/prior``).
    init(log: NetworkLog, prior: Double? = nil) {
        self.log = log
        estimator = BandwidthEstimator(prior: prior)
    }

    /// Takes in the transfers finished since the last call and returns the estimate (bits per second).
    func estimate() -> Double? {
        let (new, next) = log.transfers(after: cursor)
        cursor = next
        for transfer in new where transfer.kind == .media {
            pending.append(transfer)
            // A variant segment (its transfer carries the variant's bit rate) closes a sample.
            guard transfer.indicatedBitrate != nil else { continue }
            if let sample = Self.sample(of: pending) {
                estimator.add(bitsPerSecond: sample.bitsPerSecond, mediaSeconds: sample.mediaSeconds)
            }
            pending.removeAll()
        }
        return estimator.estimate
    }

    /// One sample of `transfers`: bytes × 8 over the union of their intervals (on the monotonic clock:
    /// ``NetworkLog/Transfer/monotonicStart``, never the wall-clock dates, which can jump); nil when there is nothing
    /// to measure.
    static func sample(of transfers: [NetworkLog.Transfer]) -> (bitsPerSecond: Double, mediaSeconds: Double)? {
        let intervals = transfers.filter { $0.bytes > 0 }.map { ($0.monotonicStart, $0.monotonicStart + $0.duration) }
            .sorted { $0.0 < $1.0 }
        guard !intervals.isEmpty else { return nil }
        var busy = 0.0
        var (start, end) = intervals[0]
        for (s, e) in intervals.dropFirst() {
            if s > end {
                busy += end - start
                (start, end) = (s, e)
            } else if e > end {
                end = e
            }
        }
        busy += end - start
        let bytes = transfers.reduce(Int64(0)) { $0 + $1.bytes }
        // The seconds of playback fetched: the variant's segments (its transfers carry its bit rate), else the longest.
        let variantSeconds = transfers.filter { $0.indicatedBitrate != nil }.reduce(0) { $0 + $1.mediaDuration }
        let media = variantSeconds > 0 ? variantSeconds : transfers.map(\.mediaDuration).max() ?? 0
        guard busy > 0, media > 0 else { return nil }
        return (Double(bytes) * 8 / busy, media)
    }
}
