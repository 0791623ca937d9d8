import Foundation

/// A variant stream: `#EXT-X-STREAM-INF` and its URI line, or `#EXT-X-I-FRAME-STREAM-INF` (RFC 8216 section
/// 4.3.4.2-3).
package struct HLSVariant: Sendable, Equatable {
    /// The variant's media playlist.
    package var uri: URL
    /// `BANDWIDTH`: peak bits per second.
    package var bandwidth: Int
    /// `AVERAGE-BANDWIDTH`: average bits per second.
    package var averageBandwidth: Int?
    /// `CODECS`, split at commas (`["avc1.64001f", "mp4a.40.2"]`); empty when absent.
    package var codecs: [String]
    package var resolution: HLSResolution?
    /// `FRAME-RATE`, frames per second.
    package var frameRate: Double?
    /// `HDCP-LEVEL` (`TYPE-0`, `TYPE-1`, `NONE`).
    package var hdcpLevel: String?
    /// `VIDEO-RANGE` (8216bis: `SDR`, `HLG`, `PQ`).
    package var videoRange: String?
    /// `AUDIO`: the `GROUP-ID` of the audio renditions to play with this variant.
    package var audioGroup: String?
    /// `VIDEO`: the `GROUP-ID` of the video renditions.
    package var videoGroup: String?
    /// `SUBTITLES`: the `GROUP-ID` of the subtitle renditions.
    package var subtitlesGroup: String?
    package var closedCaptions: HLSClosedCaptions
    /// Whether this came from `#EXT-X-I-FRAME-STREAM-INF`.
    package var isIFrameOnly: Bool

    package init(
        uri: URL, bandwidth: Int, averageBandwidth: Int? = nil, codecs: [String] = [],
        resolution: HLSResolution? = nil, frameRate: Double? = nil, hdcpLevel: String? = nil,
        videoRange: String? = nil, audioGroup: String? = nil, videoGroup: String? = nil,
        subtitlesGroup: String? = nil, closedCaptions: HLSClosedCaptions = .unspecified, isIFrameOnly: Bool = false
    ) {
        self.uri = uri
        self.bandwidth = bandwidth
        self.averageBandwidth = averageBandwidth
        self.codecs = codecs
        self.resolution = resolution
        self.frameRate = frameRate
        self.hdcpLevel = hdcpLevel
        self.videoRange = videoRange
        self.audioGroup = audioGroup
        self.videoGroup = videoGroup
        self.subtitlesGroup = subtitlesGroup
        self.closedCaptions = closedCaptions
        self.isIFrameOnly = isIFrameOnly
    }
}

/// The `CLOSED-CAPTIONS` attribute of a variant.
package enum HLSClosedCaptions: Sendable, Equatable, Hashable {
    /// No `CLOSED-CAPTIONS` attribute: captions may be in the video or not.
    case unspecified
    /// `CLOSED-CAPTIONS=NONE`: the variant carries no captions.
    case none
    /// `CLOSED-CAPTIONS="cc"`: the `GROUP-ID` of the closed-caption renditions.
    case group(String)
}
