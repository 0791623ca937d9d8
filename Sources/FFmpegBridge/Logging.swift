import CFFmpeg

/// FFmpeg's global log level. The library is quiet by default (a player must not print decoder
/// chatter into its host's terminal); set `OAVF_FFMPEG_LOG=info|warning|error|debug` to see it.
public enum FFmpegLog {
    /// Applies the level from the environment once per process.
    public static func configureFromEnvironment() {
        _ = configured
    }

    private static let configured: Bool = {
        let level: Int32
        switch getenv("OAVF_FFMPEG_LOG").map({ String(cString: $0) }) {
        case "debug"?: level = AV_LOG_DEBUG
        case "info"?: level = AV_LOG_INFO
        case "warning"?: level = AV_LOG_WARNING
        case "error"?: level = AV_LOG_ERROR
        default: level = AV_LOG_QUIET
        }
        av_log_set_level(level)
        // Quiet: no callback at all. libavformat logs at trace level in per-sample loops (MOV's sample interleaving
        // calls `av_log` for every sample of every stream); the default callback returns only after setting up a
        // 5 KiB stack frame, which made it several percent of reading a file with a large index.
        if level == AV_LOG_QUIET { av_log_set_callback(nil) }
        avformat_network_init()
        return true
    }()
}
