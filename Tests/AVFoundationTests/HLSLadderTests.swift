import Foundation
import TestSupport
import XCTest

@testable import AVFoundation

/// The generated HLS ladder (`HLSFixture.ts`: three video-only TS variants, English and French audio renditions)
/// played from a loopback server through the HLS source, with the public API only.
final class HLSLadderTests: XCTestCase {
    private var server: HTTPTestServer!

    override func setUpWithError() throws {
        server = try HTTPTestServer(root: try Fixtures.directory())
    }

    override func tearDown() {
        server.stop()
    }

    private var masterURL: URL { server.url(HLSFixture.ts.rawValue) }

    func test_renditions_becomeTheAudibleGroup_withTheirNamesLanguagesAndDefault() async throws {
        let asset = AVURLAsset(url: masterURL)
        let (duration, tracks) = try await asset.load(.duration, .tracks)
        XCTAssertEqual(duration.seconds, HLSFixture.ts.facts.duration, accuracy: 0.05)
        XCTAssertEqual(tracks.map(\.mediaType), [.video, .audio, .audio, .subtitle])
        let group = try await asset.loadMediaSelectionGroup(for: .audible)
        let audible = try XCTUnwrap(group)
        XCTAssertEqual(audible.options.map(\.displayName), ["English", "Français"])
        XCTAssertEqual(audible.options.map(\.extendedLanguageTag), ["en", "fr"])
        XCTAssertEqual(audible.defaultOption, audible.options[0])
    }

    func test_variants_areTheMultivariantPlaylists_withTheirRatesAndSizes() async throws {
        let asset = AVURLAsset(url: masterURL)
        let variants = try await asset.load(.variants)
        let facts = HLSFixture.ts.facts.variants
        XCTAssertEqual(variants.map(\.peakBitRate), facts.map { Double($0.bandwidth) })
        XCTAssertEqual(
            variants.map { $0.videoAttributes?.presentationSize },
            facts.map { CGSize(width: $0.width, height: $0.height) })
        XCTAssertEqual(variants.first?.videoAttributes?.codecTypes, [NSNumber(value: 0x6176_6331)])  // 'avc1'
        XCTAssertEqual(variants.first?.audioAttributes?.formatIDs, [NSNumber(value: 0x6161_6320)])  // 'aac '
        let file = AVURLAsset(url: try fixture(.h264AAC))
        let none = try await file.load(.variants)
        XCTAssertTrue(none.isEmpty)
    }

    /// English from the start (the default rendition), French from 4 s: 440 Hz before, 550 Hz after; the picture
    /// goes on in order; the first variant (360p) is the one played; the presentation is opened once (playback
    /// adopts the source the asset's loading opened); the French rendition's segments are fetched only from the
    /// switch on (nothing of it before).
    func test_firstVariantPlays_withTheDefaultRendition_andSelectingAnotherSwitchesWhilePlaying() throws {
        let v = VirtualPlayer(mode: .manual)
        let item = AVPlayerItem(url: masterURL)
        // The first variant only: adaptive bitrate would move up on the loopback link (see HLSAdaptiveTests).
        item.oavfVariantPolicy = StayOnVariant()
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready", timeout: 30) { item.status != .unknown }
        XCTAssertEqual(item.status, .readyToPlay, "\(String(describing: item.error))")
        XCTAssertEqual(item.presentationSize, CGSize(width: 640, height: 360))
        let group = try XCTUnwrap(item.asset.mediaSelectionGroup(forMediaCharacteristic: .audible))
        XCTAssertEqual(item.currentMediaSelection.selectedMediaOption(in: group)?.displayName, "English")
        v.player.play()
        v.clock.advance(by: CMTime(value: 4, timescale: 1))
        waitUntil("four seconds of audio", timeout: 30) { v.audio.frameCount >= 4 * 48_000 }
        let frenchBefore = server.requestLog.filter { $0.path.contains("/fra_") }.count
        XCTAssertEqual(server.requests(for: "/hls/ts/master.m3u8").count, 1)
        XCTAssertEqual(server.requests(for: "/hls/ts/360p_000.ts").count, 1)
        XCTAssertEqual(frenchBefore, 0, "\(server.requestLog.map(\.path))")
        let french = try XCTUnwrap(group.options.first { $0.extendedLanguageTag == "fr" })
        item.select(french, in: group)
        v.clock.advance(by: CMTime(value: 20, timescale: 1))
        waitUntil("end", timeout: 30) { ends.count == 1 || item.status == .failed }
        XCTAssertNil(item.error)

        let left = ToneAnalyzer.deinterleave(v.audio.samples, channelCount: 2)[0]
        XCTAssertEqual(
            ToneAnalyzer.dominantFrequency(of: Array(left[48_000..<(3 * 48_000)]), sampleRate: 48_000) ?? 0, 440,
            accuracy: 2)
        XCTAssertEqual(
            ToneAnalyzer.dominantFrequency(of: Array(left[(6 * 48_000)..<(9 * 48_000)]), sampleRate: 48_000) ?? 0, 550,
            accuracy: 2)
        let indices = v.frames.indices.compactMap { $0 }
        XCTAssertEqual(indices, Array(0..<indices.count))
        XCTAssertEqual(indices.count, HLSFixture.ts.facts.video.frameCount)
        let paths = server.requestLog.map(\.path)
        XCTAssertFalse(paths.contains { $0.contains("/540p") || $0.contains("/720p") }, "\(paths)")
        XCTAssertGreaterThan(paths.filter { $0.contains("/fra_") }.count, frenchBefore)
    }

    /// An alternate audio rendition nobody selected is not fetched at all — neither its playlist nor a segment — while
    /// English (the default, which describes the group) plays 3 s; selecting French then fetches its playlist
    /// then, and its tone (550 Hz) follows English's (440 Hz).
    func test_unselectedRendition_isFetchedOnlyOnceSelected() throws {
        let v = VirtualPlayer(mode: .manual)
        let item = AVPlayerItem(url: masterURL)
        item.oavfVariantPolicy = StayOnVariant()
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready", timeout: 30) { item.status != .unknown }
        XCTAssertEqual(item.status, .readyToPlay, "\(String(describing: item.error))")
        let group = try XCTUnwrap(item.asset.mediaSelectionGroup(forMediaCharacteristic: .audible))
        XCTAssertEqual(item.currentMediaSelection.selectedMediaOption(in: group)?.displayName, "English")
        v.player.play()
        v.clock.advance(by: CMTime(value: 3, timescale: 1))
        waitUntil("three seconds of audio", timeout: 30) { v.audio.frameCount >= 3 * 48_000 }
        let french = { self.server.requestLog.map(\.path).filter { $0.contains("/fra") } }
        XCTAssertEqual(french(), [], "\(server.requestLog.map(\.path))")
        XCTAssertEqual(server.requests(for: "/hls/ts/eng.m3u8").count, 1)

        item.select(try XCTUnwrap(group.options.first { $0.extendedLanguageTag == "fr" }), in: group)
        v.clock.advance(by: CMTime(value: 20, timescale: 1))
        waitUntil("end", timeout: 30) { ends.count == 1 || item.status == .failed }
        XCTAssertNil(item.error)
        XCTAssertEqual(french().first, "/hls/ts/fra.m3u8", "its playlist first")
        XCTAssertEqual(french().filter { $0 == "/hls/ts/fra.m3u8" }.count, 1)
        // From the segment of the switch on, each once (2 s segments: the switch is in the second, 2-4 s).
        let segments = french().filter { $0.hasSuffix(".ts") }
        // (With each request's range, status and bytes sent, to tell a retry from a second fetch if it fails.)
        let records = server.requestLog.filter { $0.path.contains("/fra_") }.map {
            "\($0.path) \($0.range ?? "-") \($0.status) \($0.bytesSent)\($0.wasReset ? " reset" : "")"
        }
        XCTAssertEqual(Set(segments).count, segments.count, "\(records)")
        XCTAssertFalse(segments.contains("/hls/ts/fra_000.ts"), "\(segments)")
        XCTAssertTrue(segments.contains("/hls/ts/fra_005.ts"), "\(segments)")
        let left = ToneAnalyzer.deinterleave(v.audio.samples, channelCount: 2)[0]
        XCTAssertEqual(
            ToneAnalyzer.dominantFrequency(of: Array(left[(48_000 / 2)..<(3 * 48_000 / 2)]), sampleRate: 48_000) ?? 0,
            440, accuracy: 2)
        XCTAssertEqual(
            ToneAnalyzer.dominantFrequency(of: Array(left[(6 * 48_000)..<(9 * 48_000)]), sampleRate: 48_000) ?? 0, 550,
            accuracy: 2)
        let indices = v.frames.indices.compactMap { $0 }
        XCTAssertEqual(indices, Array(0..<HLSFixture.ts.facts.video.frameCount))
    }

    /// The ladder listed from the top down: the caps decide which variant starts (the first listed within them).
    func test_preferredPeakBitRateAndMaximumResolution_chooseTheStartVariant() throws {
        let master = try String(contentsOf: Fixtures.url(HLSFixture.ts), encoding: .utf8)
        let header = master.components(separatedBy: "#EXT-X-STREAM-INF").first ?? ""
        let variants = master.components(separatedBy: "#EXT-X-STREAM-INF").dropFirst().map { "#EXT-X-STREAM-INF" + $0 }
        let reversed = header + variants.reversed().map { $0.hasSuffix("\n") ? $0 : $0 + "\n" }.joined()
        server.route("/hls/ts/desc.m3u8") { _ in HTTPTestResponse(text: reversed) }
        for (peak, resolution, expected) in [
            (0.0, CGSize.zero, CGSize(width: 1280, height: 720)),
            (1_100_000.0, CGSize.zero, CGSize(width: 960, height: 540)),
            (0.0, CGSize(width: 700, height: 400), CGSize(width: 640, height: 360)),
            (100_000.0, CGSize.zero, CGSize(width: 640, height: 360)),  // none fits: the lowest
        ] {
            let item = AVPlayerItem(url: server.url("hls/ts/desc.m3u8"))
            item.preferredPeakBitRate = peak
            item.preferredMaximumResolution = resolution
            let player = AVPlayer(playerItem: item)
            waitUntil("ready", timeout: 30) { item.status != .unknown }
            XCTAssertEqual(item.presentationSize, expected, "peak \(peak), resolution \(resolution)")
            withExtendedLifetime(player) {}
        }
    }

    func test_exactSeeks_landOnTheirFrame_inTheVariant() throws {
        try assertExactSeeksLand(on: masterURL, at: [5.0, 11.5, 0.5, 6.01, 3.99])
    }
}

/// The fragmented-MP4 and AES-128 sets of the generated ladder.
final class HLSSegmentFormatTests: XCTestCase {
    private var server: HTTPTestServer!

    override func setUpWithError() throws {
        server = try HTTPTestServer(root: try Fixtures.directory())
    }

    override func tearDown() {
        server.stop()
    }

    private func playToEnd(_ fixture: HLSFixture) -> (VirtualPlayer, AVPlayerItem) {
        AVFoundationTests.playToEnd(server.url(fixture.rawValue))
    }

    func test_fragmentedMP4_initSectionsAndSegments_playEveryFrameWithItsAudio() throws {
        let (v, _) = playToEnd(.fmp4)
        XCTAssertEqual(v.frames.indices.compactMap { $0 }, Array(0..<HLSFixture.fmp4.facts.video.frameCount))
        let left = ToneAnalyzer.deinterleave(v.audio.samples, channelCount: 2)[0]
        XCTAssertEqual(
            ToneAnalyzer.dominantFrequency(of: Array(left[48_000..<(3 * 48_000)]), sampleRate: 48_000) ?? 0, 440,
            accuracy: 2)
    }

    func test_fragmentedMP4_exactSeeksLandOnTheirFrame() throws {
        try assertExactSeeksLand(on: server.url(HLSFixture.fmp4.rawValue), at: [5.0, 11.5, 0.5, 6.01, 3.99])
    }

    func test_aes128_withAnExplicitIV_playsEveryFrame() throws {
        let (v, _) = playToEnd(.aes)
        XCTAssertEqual(v.frames.indices.compactMap { $0 }, Array(0..<HLSFixture.aes.facts.video.frameCount))
    }
}
