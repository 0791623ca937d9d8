import CoreMedia
import Foundation
import OAVFLocking
import PlaybackEngine

/// Reads several audio tracks mixed into one stream of linear PCM: each track is decoded and converted to the
/// output's rate and channel count, scaled by the volume ``audioMix`` gives its track (ramps included), and summed.
///
/// Settings as ``AVAssetReaderTrackOutput``'s audio settings; missing rate or channel count take the first track's.
/// With nil settings the output hands out 32-bit float, interleaved. Tracks are laid side by side from the reader's
/// start time; one that ends early contributes silence. Chunks are at most 4096 frames.
///
/// Differs from Apple: ``audioTimePitchAlgorithm`` is stored only.
open class AVAssetReaderAudioMixOutput: AVAssetReaderOutput, @unchecked Sendable {
    /// The tracks mixed.
    public let audioTracks: [AVAssetTrack]
    /// The settings given; nil for 32-bit float.
    public let audioSettings: [String: Any]?
    /// The linear PCM asked for.
    private let request: PCMRequest
    /// What the app set (any thread). Not an engine command: a reader has no player engine.
    private let stored = Locked((mix: AVAudioMix?.none, algorithm: AVAudioTimePitchAlgorithm.spectral))

    /// An output mixing `audioTracks` per `audioSettings` (nil: 32-bit float).
    ///
    /// Traps (Apple raises) when a track is not audio or the settings cannot be honoured.
    public init(audioTracks: [AVAssetTrack], audioSettings: [String: Any]?) {
        guard !audioTracks.isEmpty, audioTracks.allSatisfy({ $0.mediaType == .audio }) else {
            apiViolation("an audio mix output takes one or more audio tracks")
        }
        self.audioTracks = audioTracks
        self.audioSettings = audioSettings
        request =
            audioSettings.map { ReaderOutputSettings.pcm($0) }
            ?? PCMRequest(
                sampleRate: nil, channelCount: nil, bitsPerChannel: 32, isFloat: true, isBigEndian: false,
                isNonInterleaved: false)
        super.init(mediaType: .audio)
    }

    /// The volumes to mix the tracks at (by track ID); nil: every track at full volume.
    open var audioMix: AVAudioMix? {
        get { stored.withLock { $0.mix } }
        set {
            if session?.status ?? .unknown != .unknown { apiViolation("cannot change after reading started") }
            stored.withLock { $0.mix = newValue }
        }
    }

    /// The algorithm for time-scaled audio (stored only: a reader never time-scales).
    open var audioTimePitchAlgorithm: AVAudioTimePitchAlgorithm {
        get { stored.withLock { $0.algorithm } }
        set { stored.withLock { $0.algorithm = newValue } }
    }

    override var tracks: [AVAssetTrack] { audioTracks }

    override func makeSource(_ range: CMTimeRange, cancellation: Cancellation) throws -> any ReaderSampleSource {
        guard let asset = audioTracks[0].asset else { throw AVError(.operationNotSupportedForAsset) }
        let first = audioTracks[0].info.formatDescription.audioStreamBasicDescription
        let layout = ReaderPCMLayout(
            sampleRate: request.sampleRate ?? Int(first?.mSampleRate ?? 48_000),
            channelCount: request.channelCount ?? Int(max(1, first?.mChannelsPerFrame ?? 2)),
            bitsPerChannel: request.bitsPerChannel, isFloat: request.isFloat, isBigEndian: request.isBigEndian,
            isNonInterleaved: request.isNonInterleaved)
        let mix = audioMix
        return try AudioMixReader(
            url: asset.loader.url, sourceOptions: SourceOptions(assetOptions: asset.loader.options),
            factory: .avFoundation, streams: audioTracks.map { ($0.streamIndex, mix?.volumeCurve(for: $0.trackID)) },
            layout: layout, start: range.start, end: range.end.isNumeric ? range.end : nil,
            cancellation: cancellation)
    }
}
