import Foundation
import PlaybackEngine

/// Turns a source's finished media transfers (its ``NetworkLog``) into samples for a ``BandwidthEstimator``: the
/// transfers finished since the previous look make one sample, their bytes over the time during which at least one
/// of them was under way (a video and an audio segment fetched side by side share the link: each alone would
/// measure half of it), weighted by the seconds of media they fetched.
///
/// Owned by the source's reading thread.
final class BandwidthMeter {
    private let log: NetworkLog
    private var cursor = 0
    private(set) var estimator = BandwidthEstimator()

    init(log: NetworkLog) {
        self.log = log
    }

    /// Takes in the transfers finished since the last call and returns the estimate (bits per second).
    func estimate() -> Double? {
        let (new, next) = log.transfers(after: cursor)
        cursor = next
        if let sample = Self.sample(of: Array(new.filter { $0.kind == .media })) {
            estimator.add(bitsPerSecond: sample.bitsPerSecond, mediaSeconds: sample.mediaSeconds)
        }
        return estimator.estimate
    }

    /// One sample of `transfers`: bytes × 8 over the union of their intervals; nil when there is nothing to measure.
    static func sample(of transfers: [NetworkLog.Transfer]) -> (bitsPerSecond: Double, mediaSeconds: Double)? {
        let intervals = transfers.filter { $0.bytes > 0 }.map { ($0.start, $0.start.addingTimeInterval($0.duration)) }
            .sorted { $0.0 < $1.0 }
        guard !intervals.isEmpty else { return nil }
        var busy = 0.0
        var (start, end) = intervals[0]
        for (s, e) in intervals.dropFirst() {
            if s > end {
                busy += end.timeIntervalSince(start)
                (start, end) = (s, e)
            } else if e > end {
                end = e
            }
        }
        busy += end.timeIntervalSince(start)
        let bytes = transfers.reduce(Int64(0)) { $0 + $1.bytes }
        // The seconds of playback fetched: the variant's segments (its transfers carry its bit rate), else the longest.
        let variantSeconds = transfers.filter { $0.indicatedBitrate != nil }.reduce(0) { $0 + $1.mediaDuration }
        let media = variantSeconds > 0 ? variantSeconds : transfers.map(\.mediaDuration).max() ?? 0
        guard busy > 0, media > 0 else { return nil }
        return (Double(bytes) * 8 / busy, media)
    }
}
