import Foundation
import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// `AVPlayerItemMetadataOutput` and `AVPlayerItem.timedMetadata` on a Matroska file's chapters with tags that target
/// them (`ChapterTagsFixture`): one group per chapter over the chapter's time range.
final class ChapterTagsMetadataTests: XCTestCase {
    private let frame = 1.0 / 30
    private let titleID = AVMetadataIdentifier(rawValue: "org.ffmpeg/title")
    private let artistID = AVMetadataIdentifier(rawValue: "org.ffmpeg/artist")
    private let commentID = AVMetadataIdentifier(rawValue: "org.ffmpeg/comment")

    private struct Setup {
        let v: VirtualPlayer
        let item: AVPlayerItem
        let log: MetadataLog
    }

    private func makePlayer(identifiers: [String]? = nil, mode: VirtualClock.Mode = .untimed) throws -> Setup {
        let v = VirtualPlayer(mode: mode, captureAudio: false)
        let item = AVPlayerItem(url: try ChapterTagsFixture.url())
        let output = AVPlayerItemMetadataOutput(identifiers: identifiers)
        let log = MetadataLog()
        output.setDelegate(log, queue: log.queue)
        item.add(output)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status != .unknown }
        XCTAssertEqual(item.status, .readyToPlay, "\(String(describing: item.error))")
        _ = v.player.addPeriodicTimeObserver(forInterval: CMTime(value: 1, timescale: 30), queue: log.queue) {
            log.record(.tick($0))
        }
        return Setup(v: v, item: item, log: log)
    }

    private func playToEnd(_ s: Setup) {
        let ended = NotificationLog(.AVPlayerItemDidPlayToEndTime, object: s.item)
        s.v.player.rate = 1
        waitUntil("end") { ended.count > 0 }
        _ = s.log.events
    }

    /// Each group's chapter title (`org.ffmpeg/title`), "-" without one; "flush" for a flush.
    private func titles(_ log: MetadataLog) -> [String] {
        log.events.compactMap { e -> String? in
            switch e {
            case .groups(let g, _):
                return g.map { group in group.items.first { $0.identifier == titleID }?.stringValue ?? "-" }
                    .joined(separator: "+")
            case .flushed: return "flush"
            case .tick: return nil
            }
        }
    }

    private func titles(_ chapters: ArraySlice<ChapterTagsFixture.Chapter>) -> [String] { chapters.map(\.title) }

    func test_chapterTags_everyChapterOnce_inOrder_overItsRange_withItsTags() throws {
        let s = try makePlayer()
        playToEnd(s)
        let chapters = ChapterTagsFixture.chapters
        XCTAssertEqual(titles(s.log), titles(chapters[...]))
        for (group, chapter) in zip(s.log.groups, chapters) {
            XCTAssertEqual(group.timeRange.start.seconds, chapter.start, accuracy: 0.001, chapter.title)
            XCTAssertEqual(group.timeRange.duration.seconds, chapter.end - chapter.start, accuracy: 0.001)
            let items = group.items
            XCTAssertEqual(items.compactMap(\.identifier), [artistID, commentID, titleID])
            XCTAssertEqual(items.compactMap(\.keySpace), [.ffmpeg, .ffmpeg, .ffmpeg])
            XCTAssertEqual(items.compactMap { $0.key as? NSString }, ["artist", "comment", "title"])
            XCTAssertEqual(items.map(\.commonKey), [.commonKeyArtist, .commonKeyDescription, .commonKeyTitle])
            XCTAssertEqual(items.map(\.stringValue), [chapter.artist, chapter.comment, chapter.title])
            for item in items {
                XCTAssertEqual(item.time.seconds, chapter.start, accuracy: 0.001)
                XCTAssertEqual(item.duration.seconds, chapter.end - chapter.start, accuracy: 0.001)
            }
        }
        for e in s.log.events {
            if case .groups(_, let track) = e { XCTAssertNil(track, "chapters belong to no track") }
        }
    }

    /// Played one frame at a time on a manual clock: each chapter's group comes between the ticks a frame either side
    /// of its start (the first at the first playhead).
    func test_chapterTags_comeWithinAFrameOfTheirStart() throws {
        let s = try makePlayer(mode: .manual)
        s.v.player.play()
        waitUntil("playing") { s.v.player.timeControlStatus == .playing }
        for k in 1...Int(2.7 * 30) {
            let target = CMTime(value: Int64(k) * 1_000_000 + 500, timescale: 30_000_000)
            s.v.clock.advance(by: target - s.v.clock.time)
            waitUntil("tick \(k)") {
                s.log.events.contains {
                    if case .tick(let t) = $0 { return t >= target - CMTime(value: 1, timescale: 1_000_000) }
                    return false
                }
            }
        }
        XCTAssertEqual(titles(s.log), titles(ChapterTagsFixture.chapters[...]))
        // Before the first tick the playhead is at 0 (the first chapter is in effect as the item becomes ready).
        s.log.assertOnTime(frame: frame, firstTick: 0, fromMetadataTrack: false)
    }

    func test_chapterTags_seek_flushes_thenTheChapterInEffect_thenTheRest() throws {
        let s = try makePlayer()
        playToEnd(s)
        let chapters = ChapterTagsFixture.chapters
        s.v.player.pause()
        exactSeek(s.item, 2.0)
        playToEnd(s)
        XCTAssertEqual(titles(s.log), titles(chapters[...]) + ["flush"] + titles(chapters[1...]))
        exactSeek(s.item, 3.0)
        playToEnd(s)
        XCTAssertEqual(Array(titles(s.log).suffix(2)), ["flush", chapters[2].title])
    }

    /// Damaged copies (bits flipped, bytes overwritten, zeroed or cut, the chapters and tags among them) open or fail,
    /// play to their end or fail, and deliver at most the three chapters, in time order: never a crash or a hang.
    func test_damagedCopies_neverCrash_andDeliverAtMostTheChapters() throws {
        let original = try Data(contentsOf: try ChapterTagsFixture.url())
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oavf-chapter-tags-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for seed in UInt64(1)...12 {
            let mutant = MediaMutator.mutate(original, seed: seed)
            let url = folder.appendingPathComponent("mutant\(seed).mkv")
            try mutant.data.write(to: url)
            let v = VirtualPlayer(captureAudio: false)
            let item = AVPlayerItem(url: url)
            let output = AVPlayerItemMetadataOutput(identifiers: nil)
            let log = MetadataLog()
            output.setDelegate(log, queue: log.queue)
            item.add(output)
            let ends = NotificationLog(.AVPlayerItemDidPlayToEndTime, object: item)
            let failures = NotificationLog(.AVPlayerItemFailedToPlayToEndTime, object: item)
            v.player.replaceCurrentItem(with: item)
            waitUntil("status, \(mutant.description)") { item.status != .unknown }
            if item.status == .readyToPlay {
                v.player.play()
                waitUntil("end, \(mutant.description)") {
                    ends.count + failures.count > 0 || item.status == .failed
                }
            }
            let starts = log.groups.map(\.timeRange.start.seconds)
            XCTAssertLessThanOrEqual(starts.count, ChapterTagsFixture.chapters.count, mutant.description)
            XCTAssertEqual(starts, starts.sorted(), mutant.description)
            v.player.replaceCurrentItem(with: nil)
        }
    }

    func test_chapterTags_identifiersFilter_andTimedMetadataFollows() throws {
        let s = try makePlayer(identifiers: [artistID.rawValue])
        let chapters = ChapterTagsFixture.chapters
        // The first chapter is in effect from the start (unfiltered: `timedMetadata` is the item's own).
        waitUntil("first chapter") {
            s.item.timedMetadata?.first { $0.identifier == titleID }?.stringValue == chapters[0].title
        }
        let changes = Locked<[String]>([])
        let observation = s.item.observe(\.timedMetadata, options: [.new]) { [titleID] item, _ in
            let title = item.timedMetadata?.first { $0.identifier == titleID }?.stringValue
            changes.withLock { $0.append(title ?? "nil") }
        }
        playToEnd(s)
        XCTAssertEqual(s.log.groups.map { $0.items.compactMap(\.stringValue) }, chapters.map { [$0.artist] })
        waitUntil("last chapter") { changes.withLock { $0 }.last == chapters[2].title }
        XCTAssertEqual(changes.withLock { $0 }, chapters[1...].map(\.title))
        observation.invalidate()
    }
}
