import CoreMedia
import Foundation

/// One segment of a track's edit list: which media time range plays at which track time range, or an empty edit.
///
/// Differs from Apple: a track has exactly one segment, mapping its time range to itself (the container's edit
/// lists are applied by the demuxer and not exposed).
open class AVAssetTrackSegment: NSObject, @unchecked Sendable {
    /// Media time range (`source`) played at track time range (`target`).
    open var timeMapping: CMTimeMapping { mapping }
    /// Whether the segment is an empty edit (nothing plays during `timeMapping.target`).
    open var isEmpty: Bool { empty }

    private let mapping: CMTimeMapping
    private let empty: Bool

    init(timeMapping: CMTimeMapping, isEmpty: Bool) {
        self.mapping = timeMapping
        self.empty = isEmpty
        super.init()
    }

    /// The segment's mapping and whether it is empty, for logs.
    open override var description: String {
        "<AVAssetTrackSegment source=\(mapping.source) target=\(mapping.target) empty=\(empty)>"
    }
}

extension AVAssetTrack {
    /// The track's segments: one, mapping its time range to itself (see ``AVAssetTrackSegment``).
    @available(iOS, deprecated: 16.0, message: "Use load(.segments) instead")
    public var segments: [AVAssetTrackSegment] {
        [
            AVAssetTrackSegment(
                timeMapping: CMTimeMapping(source: info.timeRange, target: info.timeRange), isEmpty: false)
        ]
    }

    /// The segment whose target time range contains `trackTime` (the last one for a time at or past the end), nil
    /// for a track without segments.
    @available(iOS, deprecated: 16.0, message: "Use loadSegment(forTrackTime:) instead")
    public func segment(forTrackTime trackTime: CMTime) -> AVAssetTrackSegment? {
        let all = segments
        return all.first { $0.timeMapping.target.containsTime(trackTime) } ?? all.last
    }

    /// ``segment(forTrackTime:)``, loaded.
    public func loadSegment(forTrackTime trackTime: CMTime) async throws -> AVAssetTrackSegment? {
        segment(forTrackTime: trackTime)
    }

    /// ``segment(forTrackTime:)``, loaded, with a completion handler.
    public func loadSegment(
        forTrackTime trackTime: CMTime,
        completionHandler: @escaping @Sendable (AVAssetTrackSegment?, (any Error)?) -> Void
    ) {
        completionHandler(segment(forTrackTime: trackTime), nil)
    }
}

extension AVAsyncProperty where Root: AVAssetTrack, Value == [AVAssetTrackSegment] {
    /// The track's segments (``AVAssetTrack/segments``).
    public static var segments: AVAsyncProperty<Root, [AVAssetTrackSegment]> {
        .init(key: "segments") { $0.segments }
    }
}
