/// What a container says about a stream's role (FFmpeg's `AV_DISPOSITION_*` flags, in the engine's own bits).
///
/// A value type: any thread.
package struct StreamDispositions: OptionSet, Sendable, Hashable {
    /// The bits; the engine's own numbering, not FFmpeg's.
    package let rawValue: UInt32

    /// Dispositions from their bits.
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The stream to choose among its kind unless the user asks for another.
    package static let `default` = StreamDispositions(rawValue: 1 << 0)
    /// Subtitles to show even when subtitles are off (foreign-language dialogue).
    package static let forced = StreamDispositions(rawValue: 1 << 1)
    /// For people who are deaf or hard of hearing (SDH subtitles).
    package static let hearingImpaired = StreamDispositions(rawValue: 1 << 2)
    /// For people who are blind or visually impaired.
    package static let visualImpaired = StreamDispositions(rawValue: 1 << 3)
    /// A still picture attached to the file (cover art), not a video track.
    package static let attachedPicture = StreamDispositions(rawValue: 1 << 4)
    /// A commentary track.
    package static let comment = StreamDispositions(rawValue: 1 << 5)
    /// Audio or text that describes the video (audio description).
    package static let descriptions = StreamDispositions(rawValue: 1 << 6)
    /// Closed captions.
    package static let captions = StreamDispositions(rawValue: 1 << 7)
}
