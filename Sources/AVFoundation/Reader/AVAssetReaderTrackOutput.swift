import CoreMedia
import CoreVideo
import Foundation
import OAVFLocking
import PlaybackEngine

/// Reads the samples of one track: decoded pictures in the pixel format the settings ask for
/// (`kCVPixelBufferPixelFormatTypeKey`), decoded audio as linear PCM per the audio settings (`AVFormatIDKey`
/// `kAudioFormatLinearPCM`, `AVSampleRateKey`, `AVNumberOfChannelsKey`, `AVLinearPCMBitDepthKey`,
/// `AVLinearPCMIsFloatKey`, `AVLinearPCMIsBigEndianKey`, `AVLinearPCMIsNonInterleaved`), or, with nil settings, the
/// stored samples undecoded in decode order.
///
/// Pixel formats: `420v`, `420f`, `y420`, `f420`, `BGRA`, `RGBA`, `ARGB`, `L008`. Video settings without a pixel
/// format give the decoder's own format when it is one of those (`y420` for most 8-bit video), else `420v`. Linear
/// PCM: 16- or 32-bit integer, 32- or 64-bit float; missing rate or channel count keep the track's; the default is
/// 16-bit integer, interleaved, little-endian. Audio is converted with libswresample at its defaults, as the
/// `ffmpeg` tool converts it, and trimmed to the reader's time range to the sample.
///
/// Differs from Apple: pictures are not scaled (`kCVPixelBufferWidthKey` / `HeightKey` are ignored);
/// ``audioTimePitchAlgorithm`` is stored only (samples are never time-scaled by a reader).
open class AVAssetReaderTrackOutput: AVAssetReaderOutput, @unchecked Sendable {
    /// The track read.
    public let track: AVAssetTrack
    /// The settings given; nil for the stored samples.
    public let outputSettings: [String: Any]?
    /// What the engine hands out.
    private let engineOutput: TrackReaderOutput
    /// The algorithm for time-scaled audio (stored only). Any thread. Not an engine command: a reader has no player
    /// engine.
    private let algorithm = Locked(AVAudioTimePitchAlgorithm.spectral)

    /// An output of `track`'s samples per `outputSettings` (nil: as stored).
    ///
    /// Traps (Apple raises) for settings that cannot be honoured: a compressed audio format, an unsupported pixel
    /// format or linear PCM layout, or settings for a track that is neither audio nor video.
    public init(track: AVAssetTrack, outputSettings: [String: Any]?) {
        self.track = track
        self.outputSettings = outputSettings
        if let settings = outputSettings {
            switch track.mediaType {
            case .video:
                engineOutput = .video(pixelFormatType: ReaderOutputSettings.pixelFormat(settings), copies: true)
            case .audio:
                engineOutput = .audio(ReaderOutputSettings.pcm(settings))
            default:
                apiViolation(
                    "output settings apply to audio and video tracks only; pass nil for \(track.mediaType.rawValue)")
            }
        } else {
            engineOutput = .compressed
        }
        super.init(mediaType: track.mediaType)
    }

    /// The algorithm for time-scaled audio (stored only: a reader never time-scales).
    open var audioTimePitchAlgorithm: AVAudioTimePitchAlgorithm {
        get { algorithm.withLock { $0 } }
        set { algorithm.withLock { $0 = newValue } }
    }

    override var tracks: [AVAssetTrack] { [track] }

    override var storedFormatDescription: CMFormatDescription? { track.info.formatDescription }

    override func makeSource(_ range: CMTimeRange, cancellation: Cancellation) throws -> any ReaderSampleSource {
        guard let asset = track.asset else { throw AVError(.operationNotSupportedForAsset) }
        var output = engineOutput
        if case .video(let format, _) = output {
            output = .video(pixelFormatType: format, copies: alwaysCopiesSampleData)
        }
        return TrackReader(
            url: asset.loader.url, sourceOptions: SourceOptions(assetOptions: asset.loader.options),
            factory: .avFoundation, streamIndex: track.streamIndex, output: output, start: range.start,
            end: range.end.isNumeric ? range.end : nil, cancellation: cancellation)
    }
}
