import Foundation
import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// What a legible output's delegate saw, in order, merged with periodic time ticks on the same serial queue (the
/// engine hands both over in playback order, so a cue's place among the ticks says when it came).
private final class LegibleLog: NSObject, AVPlayerItemLegibleOutputPushDelegate, @unchecked Sendable {
    enum Event {
        case cues([NSAttributedString], CMTime)
        case flushed
        case tick(CMTime)
    }

    let queue = DispatchQueue(label: "legible-log")
    private let lock = ConditionLock()
    private var _events: [Event] = []

    var events: [Event] { queue.sync {}; return lock.withLock { _events } }

    func record(_ e: Event) { lock.withLock { _events.append(e) } }

    func legibleOutput(
        _ output: AVPlayerItemLegibleOutput, didOutputAttributedStrings strings: [NSAttributedString],
        nativeSampleBuffers nativeSamples: [Any], forItemTime itemTime: CMTime
    ) {
        XCTAssertTrue(nativeSamples.isEmpty)
        record(.cues(strings, itemTime))
    }

    func outputSequenceWasFlushed(_ output: AVPlayerItemOutput) { record(.flushed) }

    /// The cue deliveries: texts and item times.
    var deliveries: [(texts: [String], time: Double)] {
        events.compactMap {
            if case .cues(let s, let t) = $0 { return (s.map(\.string), t.seconds) }
            return nil
        }
    }

    var flushCount: Int { events.filter { if case .flushed = $0 { return true } else { return false } }.count }

    /// The attributed string delivered with `text`.
    func string(_ text: String) -> NSAttributedString? {
        for case .cues(let strings, _) in events { if let s = strings.first(where: { $0.string == text }) { return s } }
        return nil
    }
}

/// `AVPlayerItemLegibleOutput` on `subtitles.mkv` / `subtitles_mov_text.mp4`: cue n reads "Cue n at …" and shows
/// from frame 30n − 15 (`Fixture.styledCues`).
final class LegibleOutputTests: XCTestCase {
    private let frame = 1.0 / 30

    private struct Setup {
        let v: VirtualPlayer
        let item: AVPlayerItem
        let output: AVPlayerItemLegibleOutput
        let log: LegibleLog
    }

    /// The untimed clock moves the playhead a chunk of audio (2048 samples, 42.7 ms) per engine step, times the
    /// rate: a cue comes in the step that reaches its time, so its place among the ticks is known to that step.
    private let untimedStep = 2048.0 / 48_000

    /// A player (untimed by default) with `fixture`, legible option `title` selected, a legible output and 1/30 s ticks logged;
    /// ready, paused at 0, with every cue decoded.
    private func setUp(
        _ media: Fixture, option title: String?, advance: TimeInterval = 0, mode: VirtualClock.Mode = .untimed
    ) throws -> Setup {
        let v = VirtualPlayer(mode: mode, captureAudio: false)
        let item = AVPlayerItem(url: try fixture(media))
        let group = try XCTUnwrap(item.asset.mediaSelectionGroup(forMediaCharacteristic: .legible))
        let option = try XCTUnwrap(
            title.map { t in group.options.first { $0.displayName == t } } ?? group.options.first)
        item.select(option, in: group)
        let output = AVPlayerItemLegibleOutput()
        let log = LegibleLog()
        output.setDelegate(log, queue: log.queue)
        output.advanceIntervalForDelegateInvocation = advance
        item.add(output)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        waitUntil("cues decoded") { item.read { $0.session }?.subtitleCues?.isComplete == true }
        _ = v.player.addPeriodicTimeObserver(forInterval: CMTime(value: 1, timescale: 30), queue: log.queue) {
            log.record(.tick($0))
        }
        return Setup(v: v, item: item, output: output, log: log)
    }

    private func playToEnd(_ s: Setup, rate: Float = 1) {
        let ended = NotificationLog(.AVPlayerItemDidPlayToEndTime, object: s.item)
        s.v.player.rate = rate
        waitUntil("end") { ended.count > 0 }
        _ = s.log.events
    }

    /// Cue n on, then off, for n in `numbers`: the deliveries forwards playback makes.
    private func forwardSequence(_ cues: [TestSupport.SubtitleCue]) -> [(texts: [String], time: Double)] {
        cues.flatMap { [([$0.text], $0.start), ([], $0.end)] }
    }

    private func assertDeliveries(
        _ got: [(texts: [String], time: Double)], _ expected: [(texts: [String], time: Double)],
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(got.map(\.texts), expected.map(\.texts), file: file, line: line)
        for (g, e) in zip(got, expected) {
            XCTAssertEqual(g.time, e.time, accuracy: 0.0015, "\(e.texts)", file: file, line: line)
        }
    }

    /// Each delivery came between the ticks around its item time: no tick after it lies more than `tolerance`
    /// past it (late), no tick before it more than `tolerance` short of it (early, beyond `advance`).
    private func assertOnTime(
        _ log: LegibleLog, advance: Double = 0, tolerance: Double, file: StaticString = #filePath, line: UInt = #line
    ) {
        var lastTick = -Double.infinity
        var pending: [Double] = []
        for e in log.events {
            switch e {
            case .tick(let t):
                lastTick = t.seconds
                for due in pending {
                    XCTAssertLessThanOrEqual(
                        lastTick, due + tolerance - advance + 0.001, "on time", file: file, line: line)
                }
                pending = []
            case .cues(_, let t):
                XCTAssertGreaterThanOrEqual(
                    lastTick, t.seconds - advance - tolerance - 0.001, "not early", file: file, line: line)
                pending.append(t.seconds)
            case .flushed:
                break
            }
        }
    }

    private func key(_ name: String) -> NSAttributedString.Key { NSAttributedString.Key(name) }

    private func attribute(_ s: NSAttributedString?, _ name: String) -> Any? {
        guard let s, s.length > 0 else { return nil }
        return s.attribute(key(name), at: 0, effectiveRange: nil)
    }

    private func colour(_ s: NSAttributedString?) -> [Double]? {
        (attribute(s, kCMTextMarkupAttribute_ForegroundColorARGB) as? [NSNumber])?.map(\.doubleValue)
    }

    private func flag(_ s: NSAttributedString?, _ name: String) -> Bool {
        (attribute(s, name) as? NSNumber)?.boolValue ?? false
    }

    // MARK: Tests

    /// Plays a manual-clock player one frame at a time (each step waits for its tick), to `seconds`.
    private func playFrameByFrame(_ s: Setup, to seconds: Double) {
        s.v.player.play()
        waitUntil("playing") { s.v.player.timeControlStatus == .playing }
        let frames = Int((seconds * 30).rounded())
        for k in 1...frames {
            // Just after frame k (the clock rounds to nanoseconds).
            let target = CMTime(value: Int64(k) * 1_000_000 + 500, timescale: 30_000_000)
            s.v.clock.advance(by: target - s.v.clock.time)
            waitUntil("tick \(k)") {
                s.log.events.contains {
                    if case .tick(let t) = $0 {
                        return t >= target - CMTime(value: 1, timescale: 1_000_000)
                    } else {
                        return false
                    }
                }
            }
        }
    }

    func test_subRip_everyCueOnce_inOrder_withinAFrameOfItsTime_withItsStyle() throws {
        let s = try setUp(.subtitles, option: "SubRip", mode: .manual)
        playFrameByFrame(s, to: 5.5)
        let cues = Fixture.subtitles.facts.subtitles[0].cues
        assertDeliveries(s.log.deliveries, forwardSequence(cues))
        assertOnTime(s.log, tolerance: frame)
        XCTAssertEqual(s.log.flushCount, 0)
        let log = s.log
        XCTAssertTrue(flag(log.string(cues[1].text), kCMTextMarkupAttribute_ItalicStyle))
        XCTAssertFalse(flag(log.string(cues[1].text), kCMTextMarkupAttribute_BoldStyle))
        XCTAssertTrue(flag(log.string(cues[2].text), kCMTextMarkupAttribute_BoldStyle))
        XCTAssertEqual(colour(log.string(cues[3].text)), [1, 1, 0, 0], "<font color=\"#FF0000\">")
        XCTAssertTrue(flag(log.string(cues[4].text), kCMTextMarkupAttribute_UnderlineStyle))
        // {\an8}: centred, at the top.
        XCTAssertEqual(attribute(log.string(cues[4].text), kCMTextMarkupAttribute_Alignment) as? String, "middle")
        let top = attribute(
            log.string(cues[4].text), kCMTextMarkupAttribute_OrthogonalLinePositionPercentageRelativeToWritingDirection)
        XCTAssertLessThan((top as? NSNumber)?.doubleValue ?? 100, 20)
        XCTAssertNil(attribute(log.string(cues[0].text), kCMTextMarkupAttribute_Alignment), "placed by default")
    }

    func test_ass_stylesPositions_andTwoCuesAtOnce() throws {
        let s = try setUp(.subtitles, option: "ASS")
        playToEnd(s)
        let cues = Fixture.subtitles.facts.subtitles[1].cues
        var expected = forwardSequence(Array(cues.prefix(4)))
        expected.append(([cues[4].text, cues[5].text], cues[4].start))
        expected.append(([], cues[4].end))
        assertDeliveries(s.log.deliveries, expected)
        assertOnTime(s.log, tolerance: untimedStep)
        let log = s.log
        let yellow = log.string(cues[1].text)
        XCTAssertEqual(colour(yellow), [1, 1, 1, 0], "style Yellow")
        XCTAssertTrue(flag(yellow, kCMTextMarkupAttribute_BoldStyle))
        XCTAssertEqual(attribute(yellow, kCMTextMarkupAttribute_Alignment) as? String, "middle")
        XCTAssertEqual(colour(log.string(cues[0].text)), [1, 1, 1, 1], "style Default: white")
        XCTAssertTrue(flag(log.string(cues[2].text), kCMTextMarkupAttribute_ItalicStyle))
        let placed = log.string(cues[3].text)
        let x = attribute(placed, kCMTextMarkupAttribute_TextPositionPercentageRelativeToWritingDirection)
        let y = attribute(placed, kCMTextMarkupAttribute_OrthogonalLinePositionPercentageRelativeToWritingDirection)
        XCTAssertEqual((x as? NSNumber)?.doubleValue ?? -1, 50, accuracy: 0.01, "\\pos(160,40) of 320x240")
        XCTAssertEqual((y as? NSNumber)?.doubleValue ?? -1, 100.0 / 6, accuracy: 0.01)
        XCTAssertEqual(colour(log.string(cues[4].text)), [1, 0, 0, 1], "{\\c&HFF0000&}: blue")
    }

    func test_webVTT_and_movText_deliverEveryCueOnce() throws {
        let vtt = try setUp(.subtitles, option: "WebVTT")
        playToEnd(vtt)
        assertDeliveries(vtt.log.deliveries, forwardSequence(Fixture.subtitles.facts.subtitles[2].cues))
        assertOnTime(vtt.log, tolerance: untimedStep)
        let cues = Fixture.subtitles.facts.subtitles[2].cues
        XCTAssertTrue(flag(vtt.log.string(cues[1].text), kCMTextMarkupAttribute_ItalicStyle))
        XCTAssertTrue(flag(vtt.log.string(cues[2].text), kCMTextMarkupAttribute_BoldStyle))

        let mov = try setUp(.subtitlesMovText, option: nil)
        playToEnd(mov)
        let movCues = Fixture.subtitlesMovText.facts.subtitles[0].cues
        assertDeliveries(mov.log.deliveries, forwardSequence(movCues))
        assertOnTime(mov.log, tolerance: untimedStep)
        XCTAssertTrue(flag(mov.log.string(movCues[1].text), kCMTextMarkupAttribute_ItalicStyle))
        XCTAssertTrue(flag(mov.log.string(movCues[2].text), kCMTextMarkupAttribute_BoldStyle))
        XCTAssertTrue(flag(mov.log.string(movCues[4].text), kCMTextMarkupAttribute_UnderlineStyle))
    }

    func test_seeks_flush_thenRedeliverTheCueShownAtTheTarget_thenPlayOnOnce() throws {
        let s = try setUp(.subtitles, option: "SubRip")
        let cues = Fixture.subtitles.facts.subtitles[0].cues
        // Into the end of cue 4 (3.521–4.221): the seek reads from the keyframe at 4.021, after the cue's packet;
        // the cue still comes (the subtitle stream was read ahead).
        exactSeek(s.item, 4.1)
        waitUntil("cue 4") { s.log.deliveries.count == 1 }
        assertDeliveries(s.log.deliveries, [([cues[3].text], 4.1)])
        XCTAssertEqual(s.log.flushCount, 0, "nothing was delivered before")
        // Back into the gap after cue 1: the output is flushed, nothing is shown.
        exactSeek(s.item, 1.3)
        waitUntil("flushed") { s.log.flushCount == 1 }
        spinMainRunLoop()
        XCTAssertEqual(s.log.deliveries.count, 1)
        playToEnd(s)
        var expected: [(texts: [String], time: Double)] = [([cues[3].text], 4.1)]
        expected += forwardSequence(Array(cues.dropFirst()))
        assertDeliveries(s.log.deliveries, expected)
        XCTAssertEqual(s.log.flushCount, 1)
    }

    func test_rate2_everyCueOnce_inOrder() throws {
        let s = try setUp(.subtitles, option: "SubRip")
        playToEnd(s, rate: 2)
        assertDeliveries(s.log.deliveries, forwardSequence(Fixture.subtitles.facts.subtitles[0].cues))
        assertOnTime(s.log, tolerance: 2 * untimedStep)
    }

    func test_reverse_everyCueOnce_inReverseOrder_fromItsEnd() throws {
        let s = try setUp(.subtitles, option: "SubRip")
        exactSeek(s.item, 5.9)
        let flushesBefore = s.log.flushCount
        s.v.player.rate = -1
        waitUntil("back at the start") { s.v.player.rate == 0 && s.v.player.currentTime().seconds < 0.1 }
        let cues = Fixture.subtitles.facts.subtitles[0].cues
        let expected: [(texts: [String], time: Double)] = cues.reversed().flatMap {
            [([$0.text], $0.end), ([], $0.start)]
        }
        assertDeliveries(s.log.deliveries, expected)
        // Turning round may flush (Apple: "after seeks / direction change"); it never repeats a cue.
        XCTAssertLessThanOrEqual(s.log.flushCount, flushesBefore + 1)
    }

    func test_advanceInterval_deliversEarly_byThatMuchPlayback() throws {
        let s = try setUp(.subtitles, option: "SubRip", advance: 0.25)
        playToEnd(s)
        assertDeliveries(s.log.deliveries, forwardSequence(Fixture.subtitles.facts.subtitles[0].cues))
        assertOnTime(s.log, advance: 0.25, tolerance: untimedStep)
    }

    func test_selectingAnotherOption_flushes_andDeselectingStopsDeliveries() throws {
        let s = try setUp(.subtitles, option: "SubRip")
        exactSeek(s.item, 0.7)
        waitUntil("cue 1") { s.log.deliveries.count == 1 }
        let group = try XCTUnwrap(s.item.asset.mediaSelectionGroup(forMediaCharacteristic: .legible))
        s.item.select(group.options.first { $0.displayName == "ASS" }, in: group)
        waitUntil("cues decoded") { s.item.read { $0.session }?.subtitleCues?.streamIndex == 3 }
        exactSeek(s.item, 0.8)
        waitUntil("cue 1 of the ASS track") { s.log.deliveries.count == 2 }
        XCTAssertEqual(s.log.deliveries.map(\.texts), [["Cue 1 at 0.5"], ["Cue 1 at 0.5"]])
        XCTAssertGreaterThanOrEqual(s.log.flushCount, 1)
        s.item.select(nil, in: group)
        // (The selection reaches the engine as a command, applied before the play that follows.)
        waitUntil("no subtitle stream read") { s.item.read { $0.session }?.subtitleCues == nil }
        playToEnd(s)
        XCTAssertEqual(s.log.deliveries.count, 2, "no subtitles selected: nothing more")
    }

    func test_closedCaptions608_areALegibleOption_andDeliveredOnceAtTheirTimes() throws {
        let asset = AVURLAsset(url: try fixture(.captions608))
        let captions = asset.tracks(withMediaType: .closedCaption)
        XCTAssertEqual(captions.count, 1)
        XCTAssertEqual(
            (captions.first?.formatDescriptions.first as? CMFormatDescription).map(CMFormatDescriptionGetMediaSubType),
            0x6336_3038)
        let group = try XCTUnwrap(asset.mediaSelectionGroup(forMediaCharacteristic: .legible))
        XCTAssertEqual(group.options.map(\.mediaType), [.closedCaption])
        XCTAssertEqual(group.options.first?.displayName, "CC1")
        XCTAssertTrue(group.options.first?.hasMediaCharacteristic(.legible) ?? false)
        XCTAssertNil(
            AVURLAsset(url: try fixture(.videoOnly)).mediaSelectionGroup(forMediaCharacteristic: .legible),
            "no captions, no legible group")

        let s = try setUp(.captions608, option: "CC1")
        playToEnd(s)
        assertDeliveries(s.log.deliveries, forwardSequence(Fixture.closedCaptions))
        assertOnTime(s.log, tolerance: frame)
        // ccaption places 608 text by row and column: left-aligned, at its row.
        let first = s.log.string(Fixture.closedCaptions[0].text)
        XCTAssertEqual(attribute(first, kCMTextMarkupAttribute_Alignment) as? String, "left")
    }

    func test_closedCaptions708_eachServiceIsALegibleOption_besideCC1() throws {
        let asset = AVURLAsset(url: try fixture(.captions708))
        let captions = asset.tracks(withMediaType: .closedCaption)
        XCTAssertEqual(
            captions.map {
                ($0.formatDescriptions.first as? CMFormatDescription).map(CMFormatDescriptionGetMediaSubType) ?? 0
            },
            [FourCC.value("c608"), FourCC.value("c708"), FourCC.value("c708")])
        let group = try XCTUnwrap(asset.mediaSelectionGroup(forMediaCharacteristic: .legible))
        XCTAssertEqual(group.options.map(\.displayName), ["CC1", "SERVICE1", "SERVICE2"])
        XCTAssertEqual(group.options.map(\.mediaType), [.closedCaption, .closedCaption, .closedCaption])
        XCTAssertEqual(
            group.options.map(\.mediaSubTypes),
            [
                [NSNumber(value: FourCC.value("c608"))], [NSNumber(value: FourCC.value("c708"))],
                [NSNumber(value: FourCC.value("c708"))],
            ])
        XCTAssertEqual(group.options.map(\.isPlayable), [true, true, true])
        XCTAssertTrue(group.options.allSatisfy { $0.hasMediaCharacteristic(.legible) })
    }

    func test_closedCaptions708_service1_deliveredOnceAtTheirTimes_withTheirStyleAndPlace() throws {
        let s = try setUp(.captions708, option: "SERVICE1")
        playToEnd(s)
        let cues = Fixture.cea708Service1
        assertDeliveries(s.log.deliveries, forwardSequence(cues))
        assertOnTime(s.log, tolerance: frame)
        let log = s.log
        XCTAssertFalse(flag(log.string(cues[0].text), kCMTextMarkupAttribute_ItalicStyle))
        XCTAssertTrue(flag(log.string(cues[1].text), kCMTextMarkupAttribute_ItalicStyle), "SPA italics")
        XCTAssertEqual(colour(log.string(cues[0].text)), [1, 1, 1, 1], "white")
        XCTAssertEqual(colour(log.string(cues[2].text)), [1, 1, 1, 0], "SPC yellow")
        // Window 0: centred (SWA), its one row 90 % down the safe title area, bottom-anchored.
        let first = log.string(cues[0].text)
        XCTAssertEqual(attribute(first, kCMTextMarkupAttribute_Alignment) as? String, "middle")
        let x = attribute(first, kCMTextMarkupAttribute_TextPositionPercentageRelativeToWritingDirection)
        let y = attribute(first, kCMTextMarkupAttribute_OrthogonalLinePositionPercentageRelativeToWritingDirection)
        XCTAssertEqual((x as? NSNumber)?.doubleValue ?? -1, 50, accuracy: 0.01)
        XCTAssertEqual((y as? NSNumber)?.doubleValue ?? -1, 221.0 / 288 * 100, accuracy: 0.01)
    }

    func test_closedCaptions708_service2_deliversItsOwnCaptions() throws {
        let s = try setUp(.captions708, option: "SERVICE2")
        playToEnd(s)
        assertDeliveries(s.log.deliveries, forwardSequence(Fixture.cea708Service2))
        assertOnTime(s.log, tolerance: frame)
    }

    func test_closedCaptions708_afterASeek_andAtRate2_eachCaptionOnce() throws {
        let cues = Fixture.cea708Service1
        let s = try setUp(.captions708, option: "SERVICE1")
        // Into caption 2 (2.0–2.4 s): it comes at the target, then the rest as played.
        exactSeek(s.item, 2.2)
        waitUntil("caption 2") { s.log.deliveries.count == 1 }
        playToEnd(s)
        assertDeliveries(
            s.log.deliveries, [([cues[1].text], 2.2)] + Array(forwardSequence(Array(cues.dropFirst())).dropFirst()))

        let fast = try setUp(.captions708, option: "SERVICE1")
        playToEnd(fast, rate: 2)
        assertDeliveries(fast.log.deliveries, forwardSequence(cues))
        assertOnTime(fast.log, tolerance: 2 * frame)
    }

    func test_closedCaptions708_reverse_eachCaptionOnce_fromItsEnd() throws {
        let s = try setUp(.captions708, option: "SERVICE1")
        exactSeek(s.item, 3.9)
        s.v.player.rate = -1
        waitUntil("back at the start") { s.v.player.rate == 0 && s.v.player.currentTime().seconds < 0.1 }
        let expected: [(texts: [String], time: Double)] = Fixture.cea708Service1.reversed().flatMap {
            [([$0.text], $0.end), ([], $0.start)]
        }
        assertDeliveries(s.log.deliveries, expected)
    }

    func test_apiShape() throws {
        let output = AVPlayerItemLegibleOutput()
        XCTAssertNil(output.delegate)
        XCTAssertNil(output.delegateQueue)
        XCTAssertEqual(output.advanceIntervalForDelegateInvocation, 0)
        XCTAssertEqual(output.textStylingResolution, .default)
        output.textStylingResolution = .sourceAndRulesOnly
        XCTAssertEqual(output.textStylingResolution, .sourceAndRulesOnly)
        XCTAssertFalse(output.suppressesPlayerRendering)
        let log = LegibleLog()
        output.setDelegate(log, queue: log.queue)
        XCTAssertTrue(output.delegate === log)
        XCTAssertTrue(output.delegateQueue === log.queue)
        let native = AVPlayerItemLegibleOutput(mediaSubtypesForNativeRepresentation: [NSNumber(value: 0x7478_3367)])
        XCTAssertEqual(native.mediaSubtypesForNativeRepresentation, [NSNumber(value: 0x7478_3367)])
    }
}
