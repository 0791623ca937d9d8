import FFmpegBridge

// FFmpeg's disposition flags in the engine's own bits; internal to the engine.
extension StreamDispositions {
    /// The engine's flags for FFmpeg's (flags the engine does not name are dropped).
    init(_ disposition: StreamInfo.Disposition) {
        let pairs: [(StreamInfo.Disposition, StreamDispositions)] = [
            (.default, .default), (.forced, .forced), (.hearingImpaired, .hearingImpaired),
            (.visualImpaired, .visualImpaired), (.attachedPicture, .attachedPicture), (.comment, .comment),
            (.descriptions, .descriptions), (.captions, .captions),
        ]
        self = []
        for (ffmpeg, engine) in pairs where disposition.contains(ffmpeg) { insert(engine) }
    }
}
