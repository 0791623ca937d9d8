import FFmpegBridge
import Foundation

/// Opens inputs with libavformat to describe them, without playing them: what an asset's loading needs.
///
/// Stateless; every function may be called from any thread, and ``describe(url:options:cancellation:)`` blocks on
/// I/O (call it off the caller's thread).
package enum MediaProbe {
    /// Opens `url` and describes its container and streams (`avformat_open_input` and `avformat_find_stream_info`;
    /// the input is closed again before returning).
    ///
    /// - Parameters:
    ///   - options: how to open a network input (ignored for file URLs).
    ///   - cancellation: cancels the probe from another thread.
    ///   - factory: makes the source (the one playback will use).
    ///   - keep: given the opened source once it is described, to keep it for playback instead of closing it (the
    ///     caller then owns it; it has been read on this thread only).
    /// - Throws: a ``MediaFailure``: why the input could not be opened or probed (kind ``MediaFailureKind/cancelled``
    ///   when cancelled or timed out).
    package static func describe(
        url: URL, options: SourceOptions, cancellation: Cancellation, factory: MediaSourceFactory = .ffmpeg,
        keep: ((any MediaSource) -> Void)? = nil
    ) throws -> MediaDescription {
        // The same source playback reads, so an asset is opened exactly as its items will be.
        let source = factory.make(url.mediaLocation, options, [:], cancellation)
        try source.open()
        var description = MediaDescription(source.info)
        description.isLive = source.isLive
        description.variants = source.variants
        keep?(source)
        return description
    }

    /// The short name of the container format the first bytes of the file at `path` look like, or nil when no
    /// demuxer recognises them with reasonable confidence: tells "not a media file" from "a damaged media file".
    package static func recognizedFormat(path: String) -> String? {
        FormatProbe.recognizedFormat(path: path)
    }

    /// The failure FFmpeg reports for a codec this build cannot decode, for errors the public layer makes itself
    /// (an asset whose every track lacks a decoder).
    package static var decoderNotFound: any MediaFailure { FFmpegError.decoderNotFound }
}
