import CoreMedia
import FFmpegBridge
import Foundation
import TestSupport
import XCTest

@testable import PlaybackEngine

/// The CEA-708 captions of `captions_708.mp4` (`scripts/make-fixtures`, cc708.py): found by the probe, read from the
/// H.264 SEI by a ``SubtitleTrackReader`` and decoded by ``CEA708Decoder``, one service at a time, next to the
/// CEA-608 captions of the same SEI.
final class CEA708CaptionReaderTests: XCTestCase {
    /// Reads `service` of `fixture`'s video to the end.
    private func read(_ service: ClosedCaptionService, of fixture: Fixture = .captions708) throws -> SubtitleCueStore {
        let reader = SubtitleTrackReader(
            source: FFmpegSource(url: try Fixtures.url(fixture)), streamIndex: 0, timeOrigin: .zero,
            closedCaptions: true, captionService: service)
        reader.start()
        XCTAssertTrue(reader.store.waitUntilComplete(), "the reader finished")
        reader.stop()
        XCTAssertTrue(reader.store.isComplete)
        XCTAssertNil(reader.store.failure)
        return reader.store
    }

    /// The store's cues as (start, end, plain text, event).
    private func cues(_ store: SubtitleCueStore) -> [(start: Double, end: Double?, text: String, event: ASSEvent)] {
        let script = ASSScript(header: store.assHeader ?? "")
        return store.allCues.compactMap { cue in
            guard case .ass(let line) = cue.regions.first else { return nil }
            let event = ASSEvent(line: line, script: script)
            return (cue.start.seconds, cue.end?.seconds, event.plainText, event)
        }
    }

    func test_probe_listsCC1AndBothServices() throws {
        let media = try MediaProbe.describe(
            url: try Fixtures.url(.captions708), options: SourceOptions(), cancellation: Cancellation())
        XCTAssertEqual(media.streams.first?.hasClosedCaptions, true)
        XCTAssertEqual(media.streams.first?.cea708Services, [1, 2])
        let only608 = try MediaProbe.describe(
            url: try Fixtures.url(.captions608), options: SourceOptions(), cancellation: Cancellation())
        XCTAssertEqual(only608.streams.first?.hasClosedCaptions, true)
        XCTAssertEqual(only608.streams.first?.cea708Services, [])
    }

    /// The SEI of the picture at 1 s carries, after its 608 pair, the DTVCC packet that shows caption 1, byte for
    /// byte as CEA-708-E spells it: start (sequence 2, 4 bytes), block header (service 1, 2 bytes), DSW window 0.
    func test_fixtureSEI_carriesTheShowPacket_inThePictureAtOneSecond() throws {
        let source = FFmpegSource(url: try Fixtures.url(.captions708))
        try source.open()
        let extractor = try XCTUnwrap(ClosedCaptionExtractor(parameters: try source.codecParameters(stream: 0)))
        let timeBase = try XCTUnwrap(source.timeBase(ofStream: 0))
        let packet = Packet()
        var found: [UInt8]?
        while found == nil {
            packet.unref()
            guard case .packet = try source.read(into: packet) else { break }
            if let pts = packet.pts, CMTime(ffmpeg: pts, timeBase: timeBase) == CMTime(value: 1, timescale: 1) {
                found = packet.withData { extractor.captionData(in: $0) }
            }
        }
        let data = try XCTUnwrap(found)
        XCTAssertEqual(data.count, 33, "cc_count 11")
        XCTAssertEqual(Array(data[0..<3]), [0xFC, 0x94, 0x2F], "the 608 pair: EOC (shows CC 1 AT 1.0)")
        XCTAssertEqual(Array(data[3..<9]), [0xFF, 0x82, 0x22, 0xFE, 0x89, 0x01])
        XCTAssertEqual(Array(data[9...]), [UInt8]([0xFA, 0x00, 0x00]).repeated(8), "padding: cc_valid 0")
    }

    func test_service1_decodesEachCaptionFromItsShowToItsHide_withItsStyling() throws {
        let got = cues(try read(.cea708(service: 1)))
        XCTAssertEqual(got.map(\.text), Fixture.cea708Service1.map(\.text))
        for (g, e) in zip(got, Fixture.cea708Service1) {
            XCTAssertEqual(g.start, e.start, accuracy: 0.0001, e.text)
            XCTAssertEqual(g.end ?? -1, e.end, accuracy: 0.0001, e.text)
            // Centred in the window at the bottom (SWA), from the top of its box.
            XCTAssertEqual(g.event.alignment, 8)
            XCTAssertEqual(g.event.position?.x, 192)
            XCTAssertEqual(g.event.position?.y, 221)
        }
        XCTAssertEqual(got.map { $0.event.runs.map(\.style.italic) }, [[false], [true], [false]])
        XCTAssertEqual(
            got.map { $0.event.runs.map(\.style.colour) }, [[[1, 1, 1, 1]], [[1, 1, 1, 1]], [[1, 1, 1, 0]]])
    }

    func test_service2_decodesItsOwnCaptions_atTheTop() throws {
        let got = cues(try read(.cea708(service: 2)))
        XCTAssertEqual(got.map(\.text), Fixture.cea708Service2.map(\.text))
        for (g, e) in zip(got, Fixture.cea708Service2) {
            XCTAssertEqual(g.start, e.start, accuracy: 0.0001, e.text)
            XCTAssertEqual(g.end ?? -1, e.end, accuracy: 0.0001, e.text)
            XCTAssertEqual(g.event.alignment, 7)
            XCTAssertLessThan(g.event.position?.y ?? 999, 60, "near the top")
        }
        XCTAssertEqual(cues(try read(.cea708(service: 3))).count, 0, "service 3: absent")
    }

    func test_cc1_ofTheSameSEI_stillDecodes() throws {
        let got = cues(try read(.cea608(channel: 1)))
        XCTAssertEqual(
            got.filter { !$0.text.isEmpty }.map { $0.text.trimmingCharacters(in: .whitespaces) },
            Fixture.closedCaptions.map(\.text))
    }
}

extension Array {
    fileprivate func repeated(_ count: Int) -> [Element] {
        (0..<count).flatMap { _ in self }
    }
}
