import Foundation
import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// The `CLOSED-CAPTIONS` renditions of `hls/cc/master.m3u8` (made by `scripts/make-fixtures`): one variant, four 1 s
/// MPEG-TS segments of `captions_708.mp4`'s stream — 320x240 H.264 at 30 fps whose SEI carries CEA-608 CC1
/// captions "CC n AT n.0" from n s to n + 0.4 s, n = 1…3 (`Fixture.closedCaptions`), and CEA-708 services 1
/// (`Fixture.cea708Service1`) and 2 (`Fixture.cea708Service2`) — and a group `cc` listing "English CC" (CC1,
/// AUTOSELECT, the two accessibility characteristics), "Español CC" (CC3: not in the stream, AUTOSELECT=NO),
/// "English 708" (SERVICE1) and "Second 708" (SERVICE2, AUTOSELECT=NO); none is DEFAULT.
final class HLSClosedCaptionTests: XCTestCase {
    private var server: HTTPTestServer!
    private static let master = "hls/cc/master.m3u8"
    private static let segments = (0..<4).map { String(format: "/hls/cc/video_%03d.ts", $0) }

    override func setUpWithError() throws {
        server = try HTTPTestServer(root: try Fixtures.directory())
    }

    override func tearDown() {
        server.stop()
    }

    private var masterURL: URL { server.url(Self.master) }

    private func option(_ name: String, of item: AVPlayerItem) throws -> AVMediaSelectionOption {
        let group = try XCTUnwrap(item.asset.mediaSelectionGroup(forMediaCharacteristic: .legible))
        return try XCTUnwrap(group.options.first { $0.displayName == name }, name)
    }

    /// An item of the presentation on a manual clock with `option` selected and a legible output, ready, paused on
    /// its first picture; and that picture's item time.
    private func pausedItem(
        selecting name: String?
    ) throws -> (v: VirtualPlayer, item: AVPlayerItem, log: LegibleCueLog, firstPicture: Double) {
        let v = VirtualPlayer(mode: .manual, captureAudio: false)
        let item = AVPlayerItem(url: masterURL)
        let group = try XCTUnwrap(item.asset.mediaSelectionGroup(forMediaCharacteristic: .legible))
        item.select(try name.map { try option($0, of: item) }, in: group)
        let output = AVPlayerItemLegibleOutput()
        let log = LegibleCueLog(label: "hls-caption-log")
        output.setDelegate(log, queue: log.queue)
        item.add(output)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready", timeout: 30) { item.status != .unknown }
        XCTAssertEqual(item.status, .readyToPlay, "\(String(describing: item.error))")
        waitUntil("first frame", timeout: 30) { !v.frames.entries.isEmpty }
        let first = try XCTUnwrap(v.frames.entries.first).time.seconds
        return (v, item, log, first)
    }

    /// Plays on the manual clock, a frame's time at a time, until the item reaches `seconds` or its end.
    private func play(_ v: VirtualPlayer, _ item: AVPlayerItem, until seconds: Double) {
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.play()
        let frame = CMTime(value: 1, timescale: 30)
        for _ in 0..<2000 where item.currentTime().seconds < seconds && ends.count == 0 {
            v.clock.advance(by: frame)
            spinMainRunLoop(0.005)
            // The engine presents on its own thread, paced by the machine: wait for the picture due now before
            // moving on, or a loaded machine drops the pictures the clock outran (the last one was missed, once).
            let now = item.currentTime()
            waitUntil("the picture due at \(now.seconds) s") {
                ends.count > 0 || (v.frames.entries.last?.time ?? .zero) + frame + frame >= now
            }
        }
        v.player.pause()
        XCTAssertTrue(item.currentTime().seconds >= seconds || ends.count > 0, "reached \(seconds) s")
    }

    private var segmentRequests: [String] {
        server.requestLog.map(\.path).filter { $0.hasSuffix(".ts") }
    }

    func test_closedCaptionRenditions_areTheLegibleGroupsOptions_withTheirNamesLanguagesAndCharacteristics()
        async throws
    {
        let asset = AVURLAsset(url: masterURL)
        let loaded = try await asset.loadMediaSelectionGroup(for: .legible)
        let group = try XCTUnwrap(loaded)
        XCTAssertTrue(group.allowsEmptySelection)
        XCTAssertEqual(group.options.map(\.displayName), ["English CC", "Español CC", "English 708", "Second 708"])
        XCTAssertEqual(
            group.options.map(\.mediaType), [.closedCaption, .closedCaption, .closedCaption, .closedCaption])
        XCTAssertEqual(group.options.map(\.extendedLanguageTag), ["en", "es", "en", "en"])
        XCTAssertNil(group.defaultOption, "none is DEFAULT=YES")
        let (cc1, cc3, service1) = (group.options[0], group.options[1], group.options[2])
        for option in group.options { XCTAssertTrue(option.hasMediaCharacteristic(.legible)) }
        XCTAssertTrue(cc1.hasMediaCharacteristic(.transcribesSpokenDialogForAccessibility))
        XCTAssertTrue(cc1.hasMediaCharacteristic(.describesMusicAndSoundForAccessibility))
        XCTAssertFalse(cc3.hasMediaCharacteristic(.transcribesSpokenDialogForAccessibility), "no CHARACTERISTICS")
        XCTAssertFalse(cc3.hasMediaCharacteristic(.describesMusicAndSoundForAccessibility), "no CHARACTERISTICS")
        XCTAssertEqual(cc1.mediaSubTypes, [NSNumber(value: FourCC.value("c608"))])
        XCTAssertEqual(service1.mediaSubTypes, [NSNumber(value: FourCC.value("c708"))])
        XCTAssertEqual(group.options[3].mediaSubTypes, [NSNumber(value: FourCC.value("c708"))])
        XCTAssertEqual(group.options.map(\.isPlayable), [true, true, true, true], "CEA-608 and CEA-708 decode")
        XCTAssertEqual(
            AVMediaSelectionGroup.playableMediaSelectionOptions(from: group.options).map(\.displayName),
            ["English CC", "Español CC", "English 708", "Second 708"])
        // Each a closed-caption track of the video; no subtitle track.
        let tracks = try await asset.load(.tracks)
        XCTAssertEqual(tracks.filter { $0.mediaType == .closedCaption }.count, 4)
        XCTAssertEqual(tracks.filter { $0.mediaType == .subtitle }.count, 0)
    }

    func test_automaticSelection_choosesOnlyAutoselectRenditions() throws {
        let v = VirtualPlayer(mode: .manual, captureAudio: false)
        // Spanish is preferred, but its rendition says AUTOSELECT=NO: automatic selection leaves it to the app.
        v.player.setMediaSelectionCriteria(
            AVPlayerMediaSelectionCriteria(preferredLanguages: ["es"], preferredMediaCharacteristics: nil),
            forMediaCharacteristic: .legible)
        let item = AVPlayerItem(url: masterURL)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready", timeout: 30) { item.status != .unknown }
        let group = try XCTUnwrap(item.asset.mediaSelectionGroup(forMediaCharacteristic: .legible))
        XCTAssertEqual(item.currentMediaSelection.selectedMediaOption(in: group)?.displayName, "English CC")
    }

    func test_selectedCC1_deliversEachCaptionOnceAtItsTime_fromTheVideoAlreadyFetched() throws {
        let (v, item, log, firstPicture) = try pausedItem(selecting: "English CC")
        // The test moves the manual clock at about 6× real time; the caption reader, a thread of its own, is paced by
        // the machine. Wait for it to have decoded the captions of the video read ahead (a cue decoded only after its
        // end passed is not shown: with six busy loops per core the first one was, once).
        waitUntil("the three CC1 captions decoded", timeout: 30) {
            (item.session?.subtitleCues?.allCues.count ?? 0) >= Fixture.closedCaptions.count
        }
        play(v, item, until: 4)
        XCTAssertNil(item.error)
        let expected = Fixture.closedCaptions.flatMap {
            [([$0.text], firstPicture + $0.start), ([], firstPicture + $0.end)]
        }
        // Deliveries reach the delegate's queue asynchronously: the last may still be on its way.
        waitUntil("\(expected.count) deliveries") { log.deliveries.count >= expected.count }
        let got = log.deliveries
        XCTAssertEqual(got.map(\.texts), expected.map(\.0))
        for (g, e) in zip(got, expected) {
            XCTAssertEqual(g.time, e.1, accuracy: 0.0015, "\(e.0)")
        }
        // The captions came with the video: every segment was fetched once.
        XCTAssertEqual(segmentRequests.sorted(), Self.segments)
    }

    func test_selectedCEA708Services_deliverEachTheirOwnCaptionsOnceAtTheirTimes() throws {
        for (name, captions) in [("English 708", Fixture.cea708Service1), ("Second 708", Fixture.cea708Service2)] {
            let (v, item, log, firstPicture) = try pausedItem(selecting: name)
            // The caption reader is paced by the machine, the manual clock by the test (as in the CC1 test above).
            waitUntil("the \(name) captions decoded", timeout: 30) {
                (item.session?.subtitleCues?.allCues.count ?? 0) >= captions.count
            }
            play(v, item, until: 4)
            XCTAssertNil(item.error, name)
            let expected = captions.flatMap { [([$0.text], firstPicture + $0.start), ([], firstPicture + $0.end)] }
            // Deliveries reach the delegate's queue asynchronously: the last may still be on its way.
            waitUntil("\(expected.count) deliveries") { log.deliveries.count >= expected.count }
            let got = log.deliveries
            XCTAssertEqual(got.map(\.texts), expected.map(\.0), name)
            for (g, e) in zip(got, expected) {
                XCTAssertEqual(g.time, e.1, accuracy: 0.0015, "\(name): \(e.0)")
            }
        }
    }

    func test_renditionAbsentFromTheStream_isSelectable_andDeliversNothing() throws {
        for name in ["Español CC"] {
            let (v, item, log, _) = try pausedItem(selecting: name)
            let group = try XCTUnwrap(item.asset.mediaSelectionGroup(forMediaCharacteristic: .legible))
            XCTAssertEqual(item.currentMediaSelection.selectedMediaOption(in: group)?.displayName, name)
            play(v, item, until: 4)
            XCTAssertNil(item.error, name)
            XCTAssertEqual(item.status, .readyToPlay, name)
            XCTAssertEqual(v.frames.indices.last ?? nil, 119, "\(name): played to the last picture")
            XCTAssertEqual(log.deliveries.flatMap(\.texts), [], name)
        }
    }

    func test_deselecting_stopsTheCaptions() throws {
        let (v, item, log, firstPicture) = try pausedItem(selecting: "English CC")
        play(v, item, until: firstPicture + 1.6)
        let first = Fixture.closedCaptions[0]
        waitUntil("the caption and its end delivered") { log.deliveries.count >= 2 }
        XCTAssertEqual(log.deliveries.map(\.texts), [[first.text], []])
        let group = try XCTUnwrap(item.asset.mediaSelectionGroup(forMediaCharacteristic: .legible))
        item.select(nil, in: group)
        play(v, item, until: 4)
        XCTAssertNil(item.error)
        XCTAssertEqual(log.deliveries.flatMap(\.texts), [first.text], "captions 2 and 3 not delivered")
        // Selecting it again brings the later captions back (from the video already read).
        let again = log.deliveries.count
        let done = Locked<Bool?>(nil)
        item.seek(
            to: CMTime(seconds: firstPicture + 1.6, preferredTimescale: 600), toleranceBefore: .zero,
            toleranceAfter: .zero
        ) { ok in done.withLock { $0 = ok } }
        waitUntil("seeked", timeout: 30) { done.withLock { $0 } != nil }
        item.select(try option("English CC", of: item), in: group)
        play(v, item, until: 4)
        XCTAssertEqual(
            log.deliveries.dropFirst(again).flatMap(\.texts), Fixture.closedCaptions.dropFirst().map(\.text))
    }
}
