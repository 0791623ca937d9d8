import Foundation

/// Makes the ``MediaSource`` that reads a location: libavformat's (``ffmpeg``) unless the owner knows better. The
/// public layer passes one that gives HTTP Live Streaming URLs to the HLS module's source, which depends on the
/// engine (never the reverse), so the engine cannot name it.
///
/// A value: any thread; ``make`` may be called from any thread.
package struct MediaSourceFactory: Sendable {
    /// Makes an unopened source for a location (a path or URL), its network options, further libavformat options,
    /// and the token that cancels its I/O.
    package let make:
        @Sendable (
            _ location: String, _ sourceOptions: SourceOptions, _ options: [String: String],
            _ cancellation: Cancellation
        )
            -> any MediaSource

    package init(
        make: @escaping @Sendable (String, SourceOptions, [String: String], Cancellation) -> any MediaSource
    ) {
        self.make = make
    }

    /// Every location through libavformat.
    package static let ffmpeg = MediaSourceFactory { location, sourceOptions, options, cancellation in
        FFmpegSource(location: location, sourceOptions: sourceOptions, options: options, cancellation: cancellation)
    }
}

extension MediaSourceFactory {
    /// Media held in memory (`AVAudioPlayer(data:)`): every source made reads `bytes` through a seekable custom I/O
    /// context; the location is only its name in logs.
    package static func memory(_ bytes: [UInt8]) -> MediaSourceFactory {
        MediaSourceFactory { location, _, _, cancellation in
            FFmpegSource(memory: bytes, name: location, cancellation: cancellation)
        }
    }
}
