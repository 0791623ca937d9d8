import CoreMedia
import FFmpegBridge

/// The demux thread's routing tests: cover art, media streams, ffplay's back-pressure and the keyframe a tolerance
/// window lands on.
extension Demuxer {
    /// The next keyframe after `target` when it lies inside `window` while the keyframe at or before
    /// `target` lies before it (from the video stream's index, or the first routed stream's).
    func forwardKeyframe(for target: CMTime, in window: ClosedRange<CMTime>) -> CMTime? {
        let indices = streams.keys.sorted()
        guard let stream = indices.first(where: { source.kind(ofStream: $0) == .video }) ?? indices.first else {
            return nil
        }
        guard let tb = source.timeBase(ofStream: stream), let ts = target.ffmpegValue(in: tb) else { return nil }
        let (before, after) = source.keyframeTimestamps(stream: stream, around: ts)
        if let before, window.contains(CMTime(ffmpeg: before, timeBase: tb)) { return nil }
        guard let after else { return nil }
        let next = CMTime(ffmpeg: after, timeBase: tb)
        return window.contains(next) ? next : nil
    }

    /// Whether stream `index` is cover art: its packets come from ``queueAttachedPictures()`` only.
    func isAttachedPicture(_ index: Int) -> Bool {
        attachedPictureStreams.contains(index)
    }

    /// Whether stream `index` is audio or video (the streams duration limits apply to).
    func isMedia(_ index: Int) -> Bool {
        index < streamKinds.count && (streamKinds[index] == .audio || streamKinds[index] == .video)
    }

    /// ffplay's back-pressure test (see ``BufferLimits``).
    func isFull(_ limits: BufferLimits) -> Bool {
        var totalBytes = 0
        var everyQueueEnough = true
        var shortest = Double.infinity
        var mediaQueues = 0
        for (index, queue) in streams {
            let totals = queue.totals
            totalBytes += totals.bytes
            guard isMedia(index), !isAttachedPicture(index) else { continue }
            mediaQueues += 1
            let seconds = Double(totals.durationTicks) * queue.timeBase.doubleValue
            let enough = totals.count > limits.minPackets && (totals.durationTicks == 0 || seconds > limits.maxDuration)
            if !enough { everyQueueEnough = false }
            shortest = min(
                shortest, totals.durationTicks == 0 && totals.count > limits.minPackets ? .infinity : seconds)
        }
        if totalBytes > limits.maxBytes { return true }
        guard mediaQueues > 0 else { return false }
        if everyQueueEnough { return true }
        if let forward = limits.forwardDuration, shortest >= forward { return true }
        return false
    }
}
