import FFmpegBridge

// Building the engine's stream description from what libavformat reports; internal to the engine.
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
