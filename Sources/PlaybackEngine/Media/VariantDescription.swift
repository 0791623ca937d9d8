/// One variant of a streamed presentation (an HLS `EXT-X-STREAM-INF`), as its multivariant playlist declares it: what
/// the public layer makes an `AVAssetVariant` of. A value: any thread.
package struct VariantDescription: Sendable, Equatable {
    /// The variant's media playlist.
    package var uri: String
    /// `BANDWIDTH`: the peak bits per second.
    package var peakBitRate: Int
    /// `AVERAGE-BANDWIDTH`, when given.
    package var averageBitRate: Int?
    /// `RESOLUTION`, when given.
    package var width: Int?
    package var height: Int?
    /// `FRAME-RATE`, when given.
    package var frameRate: Double?
    /// `CODECS`: RFC 6381 codec strings ("avc1.64001f", "mp4a.40.2").
    package var codecs: [String]
    /// Whether the variant carries video (declared by its resolution or its codecs).
    package var hasVideo: Bool
    /// Whether it carries (or names a group of) audio.
    package var hasAudio: Bool

    package init(
        uri: String, peakBitRate: Int, averageBitRate: Int? = nil, width: Int? = nil, height: Int? = nil,
        frameRate: Double? = nil, codecs: [String] = [], hasVideo: Bool, hasAudio: Bool
    ) {
        self.uri = uri
        self.peakBitRate = peakBitRate
        self.averageBitRate = averageBitRate
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.codecs = codecs
        self.hasVideo = hasVideo
        self.hasAudio = hasAudio
    }
}
