import Foundation
import OAVFLocking
import PlaybackEngine

/// Audio processing for playback: per-track volume over time (AVFoundation's `AVAudioMix`).
///
/// Tracks without input parameters play at volume 1. Set it on `AVPlayerItem.audioMix` (the item
/// keeps a copy). Applies to file-based media.
open class AVAudioMix: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    /// Guards `storedParameters`, which the app sets and reads on any thread and the item copies. Not an engine
    /// command: a mix is a value the app builds; the item posts its copy to the engine.
    let lock = ConditionLock()
    /// Guarded by `lock`.
    var storedParameters: [AVAudioMixInputParameters]

    /// An audio mix with no input parameters (every track at its own volume).
    public override init() {
        storedParameters = []
        super.init()
    }

    init(parameters: [AVAudioMixInputParameters]) {
        storedParameters = parameters.map { $0.copy() as! AVAudioMixInputParameters }
        super.init()
    }

    /// The parameters per track.
    open var inputParameters: [AVAudioMixInputParameters] {
        lock.lock()
        defer { lock.unlock() }
        return storedParameters
    }

    /// Returns an immutable copy.
    open func copy(with zone: NSZone? = nil) -> Any { AVAudioMix(parameters: inputParameters) }

    /// Returns a mutable copy.
    open func mutableCopy(with zone: NSZone? = nil) -> Any { AVMutableAudioMix(parameters: inputParameters) }

    /// The volume curve for `trackID` (nil: unity).
    func volumeCurve(for trackID: CMPersistentTrackID) -> VolumeCurve? {
        inputParameters.first { $0.trackID == trackID }?.curve
    }
}

/// An audio mix whose parameters can be changed.
open class AVMutableAudioMix: AVAudioMix, @unchecked Sendable {
    open override var inputParameters: [AVAudioMixInputParameters] {
        get { super.inputParameters }
        set {
            lock.lock()
            storedParameters = newValue
            lock.unlock()
        }
    }
}

/// How one track of an audio mix sounds: its volume over time.
open class AVAudioMixInputParameters: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    /// Guards the stored values below, which the app sets and reads on any thread. Not an engine command: parameters
    /// are a value the app builds; the item posts a copy to the engine.
    let lock = ConditionLock()
    // Guarded by `lock`.
    var storedTrackID: CMPersistentTrackID = kCMPersistentTrackID_Invalid
    var segments: [VolumeCurve.Segment] = []
    var storedAlgorithm: AVAudioTimePitchAlgorithm?

    /// Parameters for no track, with no volume changes.
    public override init() { super.init() }

    /// The track the parameters apply to.
    open var trackID: CMPersistentTrackID {
        lock.lock()
        defer { lock.unlock() }
        return storedTrackID
    }

    /// The time-pitch algorithm for this track; nil uses the item's `audioTimePitchAlgorithm`.
    open var audioTimePitchAlgorithm: AVAudioTimePitchAlgorithm? {
        lock.lock()
        defer { lock.unlock() }
        return storedAlgorithm
    }

    /// The ramp in effect at `time`: true with its start and end volumes and time range; false
    /// after the last ramp or before the first.
    open func getVolumeRamp(
        for time: CMTime, startVolume: UnsafeMutablePointer<Float>?, endVolume: UnsafeMutablePointer<Float>?,
        timeRange: UnsafeMutablePointer<CMTimeRange>?
    ) -> Bool {
        let t = time.seconds
        lock.lock()
        let segs = segments.sorted { $0.start < $1.start }
        lock.unlock()
        for (i, s) in segs.enumerated() {
            let nextStart = i + 1 < segs.count ? segs[i + 1].start : Double.infinity
            // A step holds until the next change; a ramp covers its range.
            let end = s.start == s.end ? nextStart : s.end
            if t >= s.start && t < end {
                startVolume?.pointee = s.from
                endVolume?.pointee = s.to
                timeRange?.pointee = CMTimeRange(
                    start: CMTime(seconds: s.start, preferredTimescale: 600),
                    end: end.isFinite ? CMTime(seconds: end, preferredTimescale: 600) : .positiveInfinity)
                return true
            }
        }
        return false
    }

    var curve: VolumeCurve? {
        lock.lock()
        defer { lock.unlock() }
        return segments.isEmpty ? nil : VolumeCurve(segments: segments)
    }

    /// Returns an immutable copy.
    open func copy(with zone: NSZone? = nil) -> Any {
        let c = AVAudioMixInputParameters()
        copyState(to: c)
        return c
    }

    /// Returns a mutable copy.
    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        let c = AVMutableAudioMixInputParameters()
        copyState(to: c)
        return c
    }

    func copyState(to other: AVAudioMixInputParameters) {
        lock.lock()
        let (id, segs, alg) = (storedTrackID, segments, storedAlgorithm)
        lock.unlock()
        other.lock.lock()
        other.storedTrackID = id
        other.segments = segs
        other.storedAlgorithm = alg
        other.lock.unlock()
    }
}

/// Input parameters that can be changed.
open class AVMutableAudioMixInputParameters: AVAudioMixInputParameters, @unchecked Sendable {
    /// Parameters for `track` (its track ID), with no volume changes.
    public convenience init(track: AVAssetTrack?) {
        self.init()
        storedTrackID = track?.trackID ?? kCMPersistentTrackID_Invalid
    }

    open override var trackID: CMPersistentTrackID {
        get { super.trackID }
        set {
            lock.lock()
            storedTrackID = newValue
            lock.unlock()
        }
    }

    open override var audioTimePitchAlgorithm: AVAudioTimePitchAlgorithm? {
        get { super.audioTimePitchAlgorithm }
        set {
            lock.lock()
            storedAlgorithm = newValue
            lock.unlock()
        }
    }

    /// Volume `volume` from `time` on, until a later change.
    open func setVolume(_ volume: Float, at time: CMTime) {
        let t = time.seconds
        lock.lock()
        segments.removeAll { $0.start == t && $0.end == t }
        segments.append(VolumeCurve.Segment(start: t, end: t, from: volume, to: volume))
        lock.unlock()
    }

    /// A linear ramp from `startVolume` to `endVolume` across `timeRange`.
    open func setVolumeRamp(fromStartVolume startVolume: Float, toEndVolume endVolume: Float, timeRange: CMTimeRange) {
        guard timeRange.isValid, timeRange.start.isNumeric, timeRange.end.isNumeric else { return }
        lock.lock()
        segments.append(
            VolumeCurve.Segment(
                start: timeRange.start.seconds, end: timeRange.end.seconds, from: startVolume, to: endVolume))
        lock.unlock()
    }
}
