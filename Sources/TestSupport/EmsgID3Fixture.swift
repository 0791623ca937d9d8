import CoreMedia
import Foundation

/// `hls/emsg/` of the generated set (`scripts/make-fixtures`): the 360p variant of the fragmented-MP4 ladder alone
/// (12 s of 640x360 H.264 at 30 fps with the frame-index strip, video only, six 2 s segments after the init section
/// `init.mp4`) as one media playlist, `index.m3u8`, with timed ID3 in `emsg` boxes inserted after each segment's
/// `styp`.
///
/// Segment i carries tag 2i + 1 at media time 2i + 0.5 s in a version-0 box (timescale 1000, delta 500 from the
/// segment's earliest presentation time, 2i s in its `sidx`; scheme `https://aomedia.org/emsg/ID3`) and tag 2i + 2 at
/// 2i + 1.5 s in a version-1 box (timescale 90000, absolute time; AOM's scheme in even segments, Apple's
/// `https://developer.apple.com/streaming/emsg-id3` in odd ones). Segment 0 also carries a SCTE-35 `emsg`
/// (`urn:scte:scte35:2013:bin`), which is not ID3. Each tag is ID3v2.4 with two frames:
/// - `TIT2`: "ID3 n AT t" (t the media time with one decimal: "ID3 3 AT 2.5");
/// - `TXXX` with description "index" and value "n".
public enum EmsgID3Fixture {
    /// The entry playlist, relative to the fixture folder.
    public static let playlist = "hls/emsg/index.m3u8"

    /// One tag.
    public struct Event: Sendable, Equatable {
        /// The tag's index (1…12).
        public var index: Int
        /// Its time on the segments' media timeline, in seconds (n − 0.5).
        public var mediaTime: Double
        /// The `TIT2` text.
        public var title: String { "ID3 \(index) AT \(String(format: "%.1f", mediaTime))" }
        /// The item time it is due at: the media time less 2/30 s (ffmpeg's edit list puts the first picture, after
        /// two B-frames' delay, at media time 1/15 s, and the item's time starts there).
        public var itemTime: Double { mediaTime - 2.0 / 30 }
    }

    /// Every tag, in time order.
    public static let events: [Event] = (1...12).map { Event(index: $0, mediaTime: Double($0) - 0.5) }

    /// The playlist's file URL; throws if the set cannot be produced or lacks it.
    public static func url() throws -> URL {
        let url = try Fixtures.directory().appendingPathComponent(playlist)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw FixtureError.missingFile(playlist, in: url.deletingLastPathComponent())
        }
        return url
    }
}
