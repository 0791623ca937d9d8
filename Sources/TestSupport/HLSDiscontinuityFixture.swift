import Foundation

/// `hls/disc/index.m3u8` of the generated set: a VOD media playlist spliced from two separately encoded parts with an
/// `EXT-X-DISCONTINUITY` between them, for tests of discontinuities. Not an `HLSFixture` case: the tests that walk
/// those check facts (one picture size, one timeline) that a splice breaks on purpose.
///
/// - Segments 0–2 (`a_000.ts` …): frames 0–179 at 320x240, MPEG-TS timestamps from 1.4 s.
/// - Segments 3–4 (`b_000.ts` …), after the discontinuity: frames 180–299 at 480x360 (a format change), their
///   timestamps restarting at 1.4 s.
/// - Every `EXTINF` 2 s; H.264 at 30 fps with the frame-index strip, AAC 440 / 660 Hz throughout.
public enum HLSDiscontinuityFixture {
    /// The playlist's path in the fixture folder.
    public static let path = "hls/disc/index.m3u8"
    /// The frames in all: indices 0 to 299.
    public static let frameCount = 300
    /// The first frame after the discontinuity.
    public static let firstFrameAfterDiscontinuity = 180
    /// The playlist's duration in seconds.
    public static let duration = 10.0
    /// The picture size before and after the discontinuity.
    public static let sizes = (before: (width: 320, height: 240), after: (width: 480, height: 360))
}
