/// The kind of data a stream carries, in the engine's terms (FFmpeg's `AVMediaType`).
///
/// A value type: any thread.
package enum MediaKind: String, Sendable, Hashable {
    /// Pictures.
    case video
    /// Sound.
    case audio
    /// Text or bitmap subtitles.
    case subtitle
    /// Timed data (timecode, metadata streams).
    case data
    /// An attached file (fonts in Matroska), not timed.
    case attachment
    /// Something libavformat could not classify.
    case unknown
}
