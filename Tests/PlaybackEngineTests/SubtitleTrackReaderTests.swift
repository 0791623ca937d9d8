import CoreMedia
import FFmpegBridge
import Foundation
import OAVFLocking
import TestSupport
import XCTest

@testable import PlaybackEngine

/// The subtitle reader decodes each text format of the generated fixtures into the cues the facts list, at their
/// times, with the styling libavcodec's ASS events carry.
final class SubtitleTrackReaderTests: XCTestCase {
    /// Reads stream `index` of `fixture` to its end and returns the store.
    private func read(_ fixture: Fixture, stream index: Int) throws -> SubtitleCueStore {
        let reader = SubtitleTrackReader(
            source: FFmpegSource(url: try Fixtures.url(fixture)), streamIndex: index, timeOrigin: .zero)
        reader.start()
        XCTAssertTrue(reader.store.waitUntilComplete(), "the reader finished")
        reader.stop()
        XCTAssertTrue(reader.store.isComplete, "read to the end")
        XCTAssertNil(reader.store.failure)
        return reader.store
    }

    /// The cues with text, as (start, end, plain text) with the ASS script of the store.
    private func texts(_ store: SubtitleCueStore) -> [(Double, Double?, String)] {
        let script = ASSScript(header: store.assHeader ?? "")
        return store.allCues.filter { !$0.regions.isEmpty }.flatMap { cue in
            cue.regions.compactMap { region -> (Double, Double?, String)? in
                guard case .ass(let line) = region else { return nil }
                return (cue.start.seconds, cue.end?.seconds, ASSEvent(line: line, script: script).plainText)
            }
        }
    }

    private func assertCues(
        _ fixture: Fixture, stream index: Int, track: Int, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let store = try read(fixture, stream: index)
        let expected = fixture.facts.subtitles[track].cues
        let got = texts(store)
        XCTAssertEqual(got.map(\.2), expected.map(\.text), "\(fixture) \(index)", file: file, line: line)
        for (g, e) in zip(got, expected) {
            XCTAssertEqual(g.0, e.start, accuracy: 0.0015, e.text, file: file, line: line)
            XCTAssertEqual(g.1 ?? -1, e.end, accuracy: 0.0015, e.text, file: file, line: line)
        }
    }

    func test_subRip_ass_webVTT_movText_decodeEveryCueAtItsTime() throws {
        try assertCues(.subtitles, stream: 2, track: 0)
        try assertCues(.subtitles, stream: 3, track: 1)
        try assertCues(.subtitles, stream: 4, track: 2)
        try assertCues(.subtitlesMovText, stream: 2, track: 0)
    }

    func test_store_answersWhatIsShownForwardsAndBackwards_andDropsDuplicates() throws {
        let store = try read(.subtitles, stream: 2)
        let count = store.allCues.count
        // Decoding the same cue again (a second pass over the same packets) keeps one copy.
        for cue in store.allCues { store.add(cue) }
        XCTAssertEqual(store.allCues.count, count)
        let t = { (s: Double) in CMTime(seconds: s, preferredTimescale: 1000) }
        XCTAssertEqual(store.shown(at: t(0.521)).count, 1, "a cue shows from its start")
        XCTAssertEqual(store.shown(at: t(1.221)).count, 0, "and not at its end")
        XCTAssertEqual(store.shown(justBefore: t(1.221)).count, 1, "backwards: shown just before its end")
        XCTAssertEqual(store.shown(justBefore: t(0.521)).count, 0)
        XCTAssertEqual(store.changes(after: t(0), through: t(2)), [t(0.521), t(1.221), t(1.521)])
        XCTAssertEqual(store.changes(before: t(2), downTo: t(0.521)), [t(1.521), t(1.221), t(0.521)])
    }

    /// PGS, DVD and DVB pictures decode to bitmap regions at their place, and each is shown until the next subtitle of
    /// its stream (the empty one that clears it) even where its own display time runs on (DVB's 30 s page time-out).
    func test_bitmapTracks_decodeToPictures_shownUntilTheNextSubtitle() throws {
        let t = { (s: Double) in CMTime(seconds: s, preferredTimescale: 1000) }
        for stream in 1...3 {
            let store = try read(.bitmapSubtitles, stream: stream)
            for (time, place) in [(1.5, [40, 180, 240, 40]), (3.5, [100, 20, 120, 30])] {
                let shown = store.shown(at: t(time))
                XCTAssertEqual(shown.count, 1, "stream \(stream) at \(time) s")
                guard case .bitmap(let x, let y, let w, let h, let rgba) = shown.first?.regions.first else {
                    XCTFail("a picture: stream \(stream) at \(time) s")
                    continue
                }
                XCTAssertEqual([x, y, w, h], place, "stream \(stream) at \(time) s")
                XCTAssertEqual(rgba.count, w * h * 4)
                XCTAssertEqual(rgba[3], 255, "opaque")
            }
            for time in [0.5, 2.5, 4.5] {
                XCTAssertEqual(store.shown(at: t(time)).count, 0, "stream \(stream) at \(time) s")
            }
        }
    }

    func test_assEvents_carryTheirStyling() throws {
        let store = try read(.subtitles, stream: 3)
        let script = ASSScript(header: store.assHeader ?? "")
        XCTAssertEqual(script.playResX, 320)
        XCTAssertEqual(script.playResY, 240)
        let events = store.allCues.flatMap { cue in
            cue.regions.compactMap { r -> ASSEvent? in
                if case .ass(let line) = r { return ASSEvent(line: line, script: script) }
                return nil
            }
        }
        XCTAssertEqual(events.count, 6)
        guard events.count == 6 else { return }
        XCTAssertEqual(events[1].styleName, "Yellow")
        XCTAssertEqual(events[1].runs.first?.style.bold, true)
        XCTAssertEqual(events[1].runs.first?.style.colour, [1, 1, 1, 0], "yellow, opaque")
        XCTAssertEqual(events[1].alignment, 8)
        XCTAssertEqual(events[2].runs.first?.style.italic, true)
        XCTAssertEqual(events[3].position?.x, 160)
        XCTAssertEqual(events[3].position?.y, 40)
        XCTAssertEqual(events[4].runs.first?.style.colour, [1, 0, 0, 1], "blue")
        XCTAssertEqual(events[5].alignment, 8)
        XCTAssertTrue(events[5].overridesAlignment)
        XCTAssertEqual(events.map(\.plainText), Fixture.styledCues(6).map(\.text))
    }

    func test_assEvent_parsesTagsEscapesAndLegacyAlignment() {
        let e = ASSEvent(
            line: "0,0,Default,,0,0,0,,{\\b1}Bold{\\b0} {\\u1}u{\\r}\\Nplain\\hend{\\a6}", script: ASSScript())
        XCTAssertEqual(e.plainText, "Bold u\nplain\u{00A0}end")
        XCTAssertEqual(e.runs.map(\.text), ["Bold", " ", "u", "\nplain\u{00A0}end"])
        XCTAssertEqual(e.runs.map(\.style.bold), [true, false, false, false])
        XCTAssertEqual(e.runs.map(\.style.underline), [false, false, true, false])
        XCTAssertEqual(e.alignment, 8, "SSA \\a6: top centre")
        // Not an event line: the whole text is the text.
        XCTAssertEqual(ASSEvent(line: "just text", script: ASSScript()).plainText, "just text")
        XCTAssertEqual(ASSScript.colour("&H80FF0000"), [1 - 128.0 / 255, 0, 0, 1])
        XCTAssertNil(ASSScript.colour("&Hxyz&"))
    }
}

/// CEA-608 captions found in the SEI of `captions_608.mp4`'s H.264 packets and decoded by `ccaption`.
final class ClosedCaptionReaderTests: XCTestCase {
    func test_captionsInH264SEI_decodeToTheirTextAtTheirTimes() throws {
        let reader = SubtitleTrackReader(
            source: FFmpegSource(url: try Fixtures.url(.captions608)), streamIndex: 0, timeOrigin: .zero,
            closedCaptions: true)
        reader.start()
        XCTAssertTrue(reader.store.waitUntilComplete(), "the reader finished")
        reader.stop()
        let store = reader.store
        XCTAssertTrue(store.isComplete)
        XCTAssertNil(store.failure)
        let script = ASSScript(header: store.assHeader ?? "")
        let shown = Fixture.closedCaptions.map { caption -> [String] in
            let middle = CMTime(seconds: (caption.start + caption.end) / 2, preferredTimescale: 1000)
            return store.shown(at: middle).flatMap { cue in
                cue.regions.compactMap { r -> String? in
                    if case .ass(let line) = r {
                        return ASSEvent(line: line, script: script).plainText.trimmingCharacters(in: .whitespaces)
                    }
                    return nil
                }
            }
        }
        XCTAssertEqual(shown, Fixture.closedCaptions.map { [$0.text] })
        // Shown from the picture whose caption data ends the caption (EOC), to the one erasing it (EDM).
        let t = { (s: Double) in CMTime(seconds: s, preferredTimescale: 1000) }
        let starts = store.allCues.filter { !$0.regions.isEmpty }.map(\.start.seconds)
        XCTAssertEqual(starts.count, 3)
        for (got, caption) in zip(starts, Fixture.closedCaptions) {
            XCTAssertEqual(got, caption.start, accuracy: 0.001)
        }
        for caption in Fixture.closedCaptions {
            XCTAssertTrue(store.shown(at: t(caption.end + 0.01)).isEmpty, "erased at \(caption.end)")
            XCTAssertTrue(store.shown(at: t(caption.start - 0.01)).isEmpty, "not shown before \(caption.start)")
        }
    }

    func test_extractor_findsTripletsInAnnexBAndLengthPrefixedNALs_andIgnoresOtherSEI() {
        // An SEI with a GA94 payload (one triplet), with an emulation-prevention byte after 00 00.
        let payload: [UInt8] = [0xB5, 0x00, 0x31, 0x47, 0x41, 0x39, 0x34, 0x03, 0xC1, 0xFF, 0xFC, 0x94, 0x20, 0xFF]
        let sei: [UInt8] = [0x06, 0x04, UInt8(payload.count)] + payload + [0x80]
        let unregistered: [UInt8] = [0x06, 0x05, 0x03, 0x00, 0x00, 0x03, 0x01, 0x80]
        let annexB: [UInt8] = [0, 0, 0, 1] + unregistered + [0, 0, 1] + sei + [0, 0, 1, 0x65, 0x88]
        let h264 = ClosedCaptionExtractor(codec: .h264, extradata: [])
        XCTAssertNil(h264.lengthSize)
        XCTAssertEqual(annexB.withUnsafeBytes { h264.captionData(in: $0) }, [0xFC, 0x94, 0x20])
        let avcC: [UInt8] = [1, 0x64, 0, 0x1F, 0xFF, 0xE1]
        let prefixed = ClosedCaptionExtractor(codec: .h264, extradata: avcC + [0])
        XCTAssertEqual(prefixed.lengthSize, 4)
        let lengthPrefixed = [0, 0, 0, UInt8(sei.count)] + sei + [0, 0, 0, 2, 0x65, 0x88]
        XCTAssertEqual(lengthPrefixed.withUnsafeBytes { prefixed.captionData(in: $0) }, [0xFC, 0x94, 0x20])
        // Damaged lengths end the walk without reading past the packet.
        XCTAssertEqual([0, 0, 0, 0x7F, 0x06].withUnsafeBytes { prefixed.captionData(in: $0) }, [])
    }
}

/// A Boolean any thread sets and reads.
private final class SharedFlag: @unchecked Sendable {
    private let lock = ConditionLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    /// Sets it; whether it was clear.
    @discardableResult func set() -> Bool {
        lock.withLock {
            defer { value = true }; return !value
        }
    }
}

/// A caption feed (what an HLS source hands its closed-caption readers) of `captions_608.mp4`'s caption data, moved
/// by `move` (to another field or channel); it has caught up after the last packet and waits until interrupted.
private final class MovedCaptionFeed: CaptionDataSource, @unchecked Sendable {
    private let fixtureSource: FFmpegSource
    private let move: ([UInt8]) -> [UInt8]
    private var entries: [CaptionDataRead] = []
    private var next = 0
    private let interrupted = DispatchSemaphore(value: 0)
    private let flag = SharedFlag()
    /// Whether the reader asked for more after the last entry: it has handled them all.
    let drained = SharedFlag()

    init(move: @escaping ([UInt8]) -> [UInt8]) throws {
        fixtureSource = FFmpegSource(url: try Fixtures.url(.captions608))
        self.move = move
    }

    func open() throws(FFmpegError) {
        try fixtureSource.open()
        let extractor = ClosedCaptionExtractor(parameters: try fixtureSource.codecParameters(stream: 0))!
        let packet = Packet()
        while case .packet = try fixtureSource.read(into: packet) {
            let data = packet.withData { extractor.captionData(in: $0) }
            if let pts = packet.pts, !data.isEmpty { entries.append(.data(pts: pts, triplets: move(data))) }
            packet.unref()
        }
        entries.append(.caughtUp)
    }

    func readCaptionData() throws(FFmpegError) -> CaptionDataRead {
        if next < entries.count {
            defer { next += 1 }
            return entries[next]
        }
        drained.set()
        interrupted.wait()
        throw FFmpegError.exit
    }

    func interrupt() {
        if flag.set() { interrupted.signal() }
    }

    var isInterrupted: Bool { flag.isSet }
    var isLocal: Bool { true }
    var info: MediaInfo { fixtureSource.info }
    var isSeekable: Bool { false }
    var isLive: Bool { false }
    var seekableRange: CMTimeRange? { nil }
    func codecParameters(stream index: Int) throws(FFmpegError) -> CodecParameters { throw FFmpegError.streamNotFound }
    func kind(ofStream index: Int) -> StreamKind { fixtureSource.kind(ofStream: index) }
    func timeBase(ofStream index: Int) -> Rational? { fixtureSource.timeBase(ofStream: index) }
    func setDiscard(keepingStreams streams: Set<Int>) {}
    func read(into packet: Packet) throws(FFmpegError) -> ReadResult { .endOfFile }
    func attachedPicture(stream index: Int) -> Packet? { nil }
    var isAtEndOfInput: Bool { false }
    var ioError: FFmpegError? { nil }
    var bytesRead: Int64 { 0 }
    func seek(toMicroseconds microseconds: Int64, minimum: Int64, maximum: Int64) throws(FFmpegError) {}
    func keyframeTimestamps(stream index: Int, around timestamp: Int64) -> (atOrBefore: Int64?, after: Int64?) {
        (nil, nil)
    }
    func makeIndependentSource() -> any MediaSource { self }
}

/// A caption channel is read whatever field and data channel carry it (CC1…CC4, ``CaptionChannelFilter``), from a
/// source that hands over caption data it found (``CaptionDataSource``), and nothing of the other channels.
final class CaptionChannelTests: XCTestCase {
    /// `data`'s field-1 triplets moved to field 2 (`cc_type` 1).
    private static func toField2(_ data: [UInt8]) -> [UInt8] {
        var out = data
        for i in stride(from: 0, to: out.count - 2, by: 3) where out[i] & 0x03 == 0 { out[i] |= 0x01 }
        return out
    }

    /// `data` with its control codes moved to the field's second data channel (bit 0x08, parity kept).
    private static func toSecondChannel(_ data: [UInt8]) -> [UInt8] {
        var out = data
        for i in stride(from: 0, to: out.count - 2, by: 3) where (0x10...0x17).contains(out[i + 1] & 0x7F) {
            // Bit 3 flips the parity: bit 7 flips with it.
            out[i + 1] ^= 0x88
        }
        return out
    }

    /// The caption texts a reader of CEA-608 channel `channel` decodes of the moved captions.
    private func texts(channel: Int, move: @escaping ([UInt8]) -> [UInt8]) throws -> [String] {
        try texts(service: .cea608(channel: channel), move: move)
    }

    /// The caption texts a reader of `service` decodes of the moved captions.
    private func texts(service: ClosedCaptionService?, move: @escaping ([UInt8]) -> [UInt8]) throws -> [String] {
        let feed = try MovedCaptionFeed(move: move)
        let reader = SubtitleTrackReader(
            source: feed, streamIndex: 0, timeOrigin: .zero, closedCaptions: true, captionService: service)
        reader.start()
        // The feed never ends: wait until the reader has handled all it gives (no service: reads nothing).
        XCTAssertTrue(Poll.until { feed.drained.isSet || reader.store.isComplete })
        reader.stop()
        XCTAssertNil(reader.store.failure)
        let script = ASSScript(header: reader.store.assHeader ?? "")
        return reader.store.allCues.flatMap { cue in
            cue.regions.compactMap { r -> String? in
                guard case .ass(let line) = r else { return nil }
                return ASSEvent(line: line, script: script).plainText.trimmingCharacters(in: .whitespaces)
            }
        }
    }

    func test_eachChannel_decodesItsOwnCaptions_andNoneOfTheOthers() throws {
        let expected = Fixture.closedCaptions.map(\.text)
        XCTAssertEqual(try texts(channel: 1, move: { $0 }), expected, "CC1")
        XCTAssertEqual(try texts(channel: 3, move: Self.toField2), expected, "CC3: field 2")
        XCTAssertEqual(try texts(channel: 2, move: Self.toSecondChannel), expected, "CC2: field 1, channel 2")
        XCTAssertEqual(
            try texts(channel: 4, move: { Self.toSecondChannel(Self.toField2($0)) }), expected,
            "CC4: field 2, channel 2")
        XCTAssertEqual(try texts(channel: 3, move: { $0 }), [], "CC3 of a stream carrying CC1")
        XCTAssertEqual(try texts(channel: 1, move: Self.toField2), [], "CC1 of a stream carrying CC3")
        XCTAssertEqual(try texts(channel: 1, move: Self.toSecondChannel), [], "CC1 of a stream carrying CC2")
        XCTAssertEqual(try texts(service: nil, move: { $0 }), [], "no service: nothing decoded")
        XCTAssertEqual(try texts(service: .cea708(service: 1), move: { $0 }), [], "no CEA-708 data: no 708 captions")
    }
}
