import CoreMedia

/// One chapter of a container (MP4 chapter tracks or `chpl`, Matroska editions), in container time: what the public
/// layer makes chapter metadata groups of. A value: any thread.
package struct ChapterDescription: Sendable, Equatable {
    /// Where the chapter starts and ends (container time).
    package var start: CMTime
    package var end: CMTime
    /// The chapter's tags, keys lower-cased ("title", "language" …).
    package var metadata: [String: String]

    package init(start: CMTime, end: CMTime, metadata: [String: String]) {
        self.start = start
        self.end = end
        self.metadata = metadata
    }
}
