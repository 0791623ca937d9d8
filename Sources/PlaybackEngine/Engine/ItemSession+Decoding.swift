import CoreMedia

/// How the item's video decoder works at a rate, and the picture cache it fills while paused (seeks and steps).
extension ItemSession {
    /// At this rate and above (either direction), the video decoder skips non-reference pictures (B-frames):
    /// a 60 Hz display cannot show every picture of 30 fps media played at 4× anyway.
    package static let skipNonReferenceRate: Float = 4
    /// At this rate and above, the video decoder decodes keyframes only.
    package static let keyframesOnlyRate: Float = 16

    /// Lets the video decoder skip pictures that playback at `rate` could not show (see
    /// ``skipNonReferenceRate`` and ``keyframesOnlyRate``); rate 0 (paused, stepping, seeking) decodes everything.
    package func adaptVideoDecoding(toRate rate: Float) {
        guard let decoder = lock.withLock({ videoDecoder }) else { return }
        let r = abs(rate)
        decoder.skipNonKeyFrames = r >= Self.keyframesOnlyRate
        decoder.skipNonReferenceFrames = r >= Self.skipNonReferenceRate
        // Pictures are cached while paused only: playback would fill the cache with pictures nobody steps back to.
        if rate != 0 {
            decoder.status.cachesPictures = false
            pictureCache.removeAll()
        }
    }

    /// Makes the video decoder put the pictures it makes into ``pictureCache`` (paused seeks and steps) or not.
    package func setCachesPictures(_ caches: Bool) {
        lock.withLock { videoDecoder }?.status.cachesPictures = caches
    }

    /// The cached picture shown at `itemTime` (see ``PictureCache/picture(at:)``), nil when the cache cannot tell.
    package func cachedPicture(at itemTime: CMTime) -> VideoFrame? {
        pictureCache.picture(at: containerTime(itemTime))
    }

    /// The cached picture `count` pictures before (negative) or after the one starting at `itemTime`, nil when the
    /// cache cannot tell.
    package func cachedPicture(_ count: Int, from itemTime: CMTime) -> VideoFrame? {
        pictureCache.picture(count, from: containerTime(itemTime))
    }

    /// Keeps the cached pictures nearest `itemTime` when some must go (the playhead).
    package func anchorPictureCache(at itemTime: CMTime) {
        pictureCache.setAnchor(containerTime(itemTime))
    }
}
