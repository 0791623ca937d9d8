import CoreMedia
import FFmpegBridge

/// The decoder of one closed-caption service of a video stream, fed the `cc_data` triplets of its pictures in
/// display order: a CEA-608 channel through ``CaptionChannelFilter`` and libavcodec's `ccaption`, a CEA-708 service
/// through ``CEA708Decoder``. Cues come out on the item's timeline.
///
/// Not thread-safe: the caption reader's thread owns it.
final class CaptionServiceDecoder {
    private enum Kind {
        case cea608(CaptionChannelFilter, SubtitleDecoder)
        case cea708(CEA708Decoder)
    }

    private var kind: Kind
    private let timeBase: Rational
    private let timeOrigin: CMTime

    /// A decoder of `service` for pictures whose times are in `timeBase`, container time `timeOrigin` being item
    /// time zero.
    init(_ service: ClosedCaptionService, timeBase: Rational, timeOrigin: CMTime) throws(FFmpegError) {
        switch service {
        case .cea608(let channel):
            kind = .cea608(
                CaptionChannelFilter(channel: channel), try SubtitleDecoder(closedCaptionsWithTimeBase: timeBase))
        case .cea708(let number):
            kind = .cea708(CEA708Decoder(service: number))
        }
        self.timeBase = timeBase
        self.timeOrigin = timeOrigin
    }

    /// The ASS header the cues' event lines are styled in.
    var assHeader: String? {
        switch kind {
        case .cea608(_, let decoder): return decoder.assHeader
        case .cea708: return CEA708Decoder.assHeader
        }
    }

    /// What of a picture's triplets `data` the service needs (empty: nothing; the picture need not be decoded):
    /// the 608 channel's pairs moved to where `ccaption` reads them, or the valid DTVCC triplets (`cc_type` 2, 3).
    /// Called in decode order (the 608 channel filter follows the control codes as they come).
    func filter(_ data: [UInt8]) -> [UInt8] {
        switch kind {
        case .cea608(var filter, let decoder):
            defer { kind = .cea608(filter, decoder) }
            return filter.filter(data)
        case .cea708:
            var out: [UInt8] = []
            var i = 0
            while i + 2 < data.count {
                if data[i] & 0x06 == 0x06 { out += data[i..<(i + 3)] }
                i += 3
            }
            return out
        }
    }

    /// Decodes the filtered triplets of the picture at `pts` (display order); returns the cues it completed.
    func decode(_ data: [UInt8], pts: Int64) -> [SubtitleCue] {
        switch kind {
        case .cea608(_, let decoder):
            guard let decoded = try? decoder.decode(captionData: data, pts: pts) else { return [] }
            return [SubtitleTrackReader.cue(decoded, pts: pts, timeBase: timeBase, timeOrigin: timeOrigin)]
        case .cea708(var decoder):
            defer { kind = .cea708(decoder) }
            return decoder.decode(data, at: CMTime(ffmpeg: pts, timeBase: timeBase) - timeOrigin)
        }
    }

    /// The cues still shown at the end of the stream (CEA-708: without an end); ``CaptionServiceDecoder`` forgets
    /// them.
    func finish() -> [SubtitleCue] {
        switch kind {
        case .cea608: return []
        case .cea708(var decoder):
            defer { kind = .cea708(decoder) }
            return decoder.finish()
        }
    }
}
