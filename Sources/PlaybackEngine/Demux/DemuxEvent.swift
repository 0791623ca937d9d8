import CoreMedia
import FFmpegBridge

/// What the demux thread reports to its owner through `Demuxer.onEvent` (called on the demux thread;
/// handlers must return quickly and may call any `Demuxer` method, `stop()` included).
package enum DemuxEvent: Sendable {
    /// The input ended; every queue got an end-of-stream marker. Reading resumes after a seek.
    case endOfFile
    /// Reading failed for good before the end (an I/O error, a truncated file); every queue got an
    /// end-of-stream marker so the decoders drain what arrived. Corrupt packets are not errors: they are
    /// passed on to the decoders, as ffplay does.
    case readError(FFmpegError)
    /// A seek was performed: every queue was flushed (their serials bumped) and reading continues from
    /// the new position. Superseded seek requests are never performed and never reported.
    case seekCompleted(target: CMTime)
    /// `avformat_seek_file` failed: nothing was flushed and reading continues where it was.
    case seekFailed(target: CMTime, error: FFmpegError)
    /// The transport delivered new ICY metadata (`StreamTitle='…';`) while the packet at container time `time`
    /// (nil: unknown) was read.
    case icyMetadata(String, time: CMTime?)
    /// A packet of a timed-metadata stream (ID3 tags of a `timed_id3` stream) was read, or the source found an ID3
    /// tag beside its packets (HLS `emsg` boxes): its bytes, its stream (nil: none), its container time (nil:
    /// unknown).
    case timedMetadata([UInt8], stream: Int?, time: CMTime?)
}
