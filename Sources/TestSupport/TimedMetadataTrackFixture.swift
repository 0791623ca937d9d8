import Foundation

/// `timed_metadata.mp4` of the generated set (`scripts/make-fixtures`): `video_only.mp4` (3 s of 320x240 H.264 at
/// 30 fps with the frame-index strip) with a QuickTime timed-metadata track (`meta` handler, `mebx` sample entry)
/// whose key table declares three `mdta` keys and whose three samples of 1 s start at 0, 1 and 2 s.
public enum TimedMetadataTrackFixture {
    /// The file, relative to the fixture folder.
    public static let name = "timed_metadata.mp4"
    /// The metadata track's ID (the video track is 1).
    public static let trackID: Int32 = 2

    /// The keys, in the samples' order, with the well-known data type each declares.
    public static let keys: [(name: String, dataType: UInt32)] = [
        ("com.example.title", 1), ("com.example.index", 67), ("com.example.level", 24),
    ]

    /// One sample.
    public struct Sample: Sendable, Equatable {
        /// Its index (0…2), which is also its start in seconds; it lasts 1 s.
        public var index: Int
        public var start: Double { Double(index) }
        /// `com.example.title` (UTF-8).
        public var title: String { "MEBX \(index) AT \(index).0" }
        /// `com.example.level` (float64): the index plus a half.
        public var level: Double { Double(index) + 0.5 }
    }

    /// The samples, in order.
    public static let samples = (0..<3).map { Sample(index: $0) }

    /// The file's URL; throws if the set cannot be produced or lacks it.
    public static func url() throws -> URL {
        let url = try Fixtures.directory().appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw FixtureError.missingFile(name, in: url.deletingLastPathComponent())
        }
        return url
    }
}
