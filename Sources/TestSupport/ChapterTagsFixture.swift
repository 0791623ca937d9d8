import Foundation

/// `chapter_tags.mkv` of the generated set (`scripts/make-fixtures`): 4 s of 320x240 H.264 at 30 fps with the
/// frame-index strip (1 s closed GOPs, no audio) and three chapters written from an ffmetadata file. Chapter n has
/// the title "Chapter n AT <start>" (its ChapterDisplay) and two Matroska tags targeting it (`TargetChapterUID`):
/// ARTIST "Artist n" and COMMENT "index n"; libavformat reads all three into the chapter's metadata.
public enum ChapterTagsFixture {
    /// The file, relative to the fixture folder.
    public static let name = "chapter_tags.mkv"

    /// One chapter.
    public struct Chapter: Sendable, Equatable {
        /// Its index (1…3).
        public var index: Int
        /// Its start and end, in seconds of item time (the file starts at 0).
        public var start: Double
        public var end: Double
        /// Its title.
        public var title: String { "Chapter \(index) AT \(String(format: "%.1f", start))" }
        /// Its ARTIST and COMMENT tags.
        public var artist: String { "Artist \(index)" }
        public var comment: String { "index \(index)" }
    }

    /// The chapters, in order: 0–1.5 s, 1.5–2.5 s, 2.5–4 s.
    public static let chapters: [Chapter] = [
        Chapter(index: 1, start: 0, end: 1.5), Chapter(index: 2, start: 1.5, end: 2.5),
        Chapter(index: 3, start: 2.5, end: 4),
    ]

    /// The file's URL; throws if the set cannot be produced or lacks it.
    public static func url() throws -> URL {
        let url = try Fixtures.directory().appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw FixtureError.missingFile(name, in: url.deletingLastPathComponent())
        }
        return url
    }
}
