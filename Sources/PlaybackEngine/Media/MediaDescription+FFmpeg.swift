import FFmpegBridge

// Building the engine's descriptions from what libavformat reports; internal to the engine, so no FFmpeg type
// reaches the public layer.
extension MediaDescription {
    /// The description of a probed input.
    init(_ info: MediaInfo) {
        self.init()
        formatName = info.formatName
        formatLongName = info.formatLongName
        durationMicroseconds = info.durationMicroseconds
        startTimeMicroseconds = info.startTimeMicroseconds
        bitRate = info.bitRate
        isDurationEstimated = info.durationFromBitrate
        byteSize = info.byteSize
        metadata = info.metadata
        streams = info.streams.map(StreamDescription.init)
    }
}

extension StreamDescription {
    /// The description of one probed stream.
    init(_ s: StreamInfo) {
        self.init()
        index = s.index
        containerID = s.containerID
        kind = MediaKind(s.kind)
        codecName = s.codecName
        codecLongName = s.codecLongName
        profileName = s.profileName
        codecTag = s.codecTag
        hasDecoder = s.hasDecoder
        timeBase = MediaRational(s.timeBase)
        startTime = s.startTime
        duration = s.duration
        bitRate = s.bitRate
        dispositions = StreamDispositions(s.disposition)
        metadata = s.metadata
        width = s.width
        height = s.height
        sampleAspectRatio = s.sampleAspectRatio.map(MediaRational.init)
        averageFrameRate = s.averageFrameRate.map(MediaRational.init)
        realFrameRate = s.realFrameRate.map(MediaRational.init)
        rotationDegrees = s.rotationDegrees
        isMirrored = s.isMirrored
        hasReordering = s.hasReordering
        sampleRate = s.sampleRate
        channelCount = s.channelCount
        channelLayoutName = s.channelLayoutName
    }
}

extension MediaKind {
    /// The engine's kind for FFmpeg's.
    init(_ kind: StreamKind) {
        switch kind {
        case .video: self = .video
        case .audio: self = .audio
        case .subtitle: self = .subtitle
        case .data: self = .data
        case .attachment: self = .attachment
        case .unknown: self = .unknown
        }
    }
}

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
