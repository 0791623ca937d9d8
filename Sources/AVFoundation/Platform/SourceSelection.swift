import Foundation
import HLS
import PlaybackEngine

extension MediaSourceFactory {
    /// How the public layer reads an asset's URL: an `http(s)` URL of an HLS playlist (`.m3u8`, `.m3u`) through the
    /// HLS module's own playlist and segment layer; files and everything else through libavformat.
    static let avFoundation = MediaSourceFactory { location, sourceOptions, options, cancellation in
        if let url = URL(string: location), HLSHTTP.isRemote(url), HLSSource.handles(url) {
            return HLSSource(url: url, sourceOptions: sourceOptions, cancellation: cancellation)
        }
        return MediaSourceFactory.ffmpeg.make(location, sourceOptions, options, cancellation)
    }
}

/// The schemes the HLS source fetches.
private enum HLSHTTP {
    static func isRemote(_ url: URL) -> Bool {
        let scheme = url.scheme?.lowercased()
        return scheme == "http" || scheme == "https"
    }
}
