import CoreMedia
import FFmpegBridge
import Foundation
import PlaybackEngine

// Fetching and parsing playlists, and the variants the multivariant playlist offers.
extension HLSSource {
    /// Fetches the media playlist at `uri` (`what` names it in errors).
    func mediaPlaylist(at uri: URL, of what: String) throws(FFmpegError) -> HLSMediaPlaylist {
        guard case .media(let media) = try load(uri) else {
            throw FFmpegError(
                code: FFmpegError.invalidData.code,
                function: "HLS: \(what) \(uri.absoluteString) is not a media playlist")
        }
        guard !media.segments.isEmpty else {
            throw FFmpegError(
                code: FFmpegError.invalidData.code, function: "HLS: \(media.url.absoluteString) lists no segment")
        }
        return media
    }

    /// Fetches and parses the playlist at `url`.
    func load(_ url: URL) throws(FFmpegError) -> HLSPlaylist {
        try Self.load(url, client: client, parser: parser, isInterrupted: { [self] in isInterruptedNow })
    }

    /// Fetches and parses the playlist at `url`; parse errors become `invalidData` naming the playlist and line.
    static func load(
        _ url: URL, client: HLSHTTPClient, parser: HLSParser, isInterrupted: () -> Bool
    ) throws(FFmpegError) -> HLSPlaylist {
        let (data, finalURL) = try client.fetch(url, limit: parser.limits.maxBytes, isInterrupted: isInterrupted)
        do {
            return try parser.parse(data, url: finalURL)
        } catch {
            throw FFmpegError(code: FFmpegError.invalidData.code, function: "HLS: \(finalURL.absoluteString): \(error)")
        }
    }

    package var variants: [VariantDescription] {
        (multivariant?.variants ?? []).filter { !$0.isIFrameOnly }.map { v in
            let kinds = v.codecs.map { $0.lowercased() }
            let videoCodec = kinds.contains {
                ["avc", "hvc", "hev", "vp0", "vp9", "av01", "dvh"].contains(where: $0.hasPrefix)
            }
            let audioCodec = kinds.contains {
                ["mp4a", "ac-3", "ec-3", "opus", "flac", "alac"].contains(where: $0.hasPrefix)
            }
            return VariantDescription(
                uri: v.uri.absoluteString, peakBitRate: v.bandwidth, averageBitRate: v.averageBandwidth,
                width: v.resolution?.width, height: v.resolution?.height, frameRate: v.frameRate, codecs: v.codecs,
                hasVideo: v.resolution != nil || videoCodec, hasAudio: audioCodec || v.audioGroup != nil)
        }
    }
}
