import FFmpegBridge

// FFmpeg's stream kinds in the engine's terms; internal to the engine.
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
