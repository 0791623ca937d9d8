import CoreMedia
import FFmpegBridge

/// One decoded subtitle on the item's timeline: what it shows, from when to when.
package struct SubtitleCue: Sendable, Equatable {
    /// Item time it is shown from.
    package var start: CMTime
    /// Item time it is shown until (exclusive); nil when the stream does not say (it lasts until the next cue).
    package var end: CMTime?
    /// What it shows (ASS event lines for text formats, pictures for bitmap ones); empty for a cue that only clears
    /// what was shown (bitmap formats send those).
    package var regions: [SubtitleRegion]

    package init(start: CMTime, end: CMTime?, regions: [SubtitleRegion]) {
        self.start = start
        self.end = end
        self.regions = regions
    }
}
