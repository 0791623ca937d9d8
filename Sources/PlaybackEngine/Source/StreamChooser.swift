import FFmpegBridge

/// What the app's choices say about the streams to play (the item's track `isEnabled` flags and its audible media
/// selection), for ``StreamChooser``.
package struct StreamPreferences: Sendable, Equatable {
    /// The audio stream the media selection chose, if any.
    package var audioStream: Int?
    /// Streams whose tracks the app disabled.
    package var disabledStreams: Set<Int>

    package init(audioStream: Int? = nil, disabledStreams: Set<Int> = []) {
        self.audioStream = audioStream
        self.disabledStreams = disabledStreams
    }
}

/// Chooses the streams an item plays once its source is open (ffplay's `av_find_best_stream` step, with Apple's
/// track rules).
///
/// - Video: the first video stream with a decoder that is not cover art and not disabled.
/// - Audio: the selected stream when it is a playable audio stream; else, among playable audio streams not
///   disabled, the first enabled one — the container's default when it marks one, else the first.
enum StreamChooser {
    /// The (video, audio) stream indices to play from `info` under `preferences`.
    static func choose(from info: MediaInfo, preferences: StreamPreferences) -> (video: Int?, audio: Int?) {
        let playable = info.streams.filter { $0.hasDecoder && !preferences.disabledStreams.contains($0.index) }
        let video = playable.first { $0.kind == .video && !$0.disposition.contains(.attachedPicture) }?.index
        let audios = playable.filter { $0.kind == .audio }
        if let selected = preferences.audioStream,
            info.streams.contains(where: { $0.index == selected && $0.kind == .audio && $0.hasDecoder })
        {
            return (video, selected)
        }
        // Apple: a track is enabled when the container marks it default, or when it marks no track of its kind so.
        let marksDefault = info.streams.contains { $0.kind == .audio && $0.disposition.contains(.default) }
        let enabled = audios.first { !marksDefault || $0.disposition.contains(.default) }
        return (video, (enabled ?? audios.first)?.index)
    }
}
