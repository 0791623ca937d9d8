import AVFoundation
import Foundation
import TestSupport
import XCTest

/// Apple's properties for what a Linux player has no hardware or system state for (background policy, HDR
/// displays, GPU choice, spatial audio, clean apertures): Apple's spellings, raw values and defaults, stored values,
/// and playback unchanged by them. Public API only.
final class PlatformPropertiesTests: XCTestCase {
    func test_player_backgroundPolicy_gpu_masterClock_andHDR() throws {
        let player = AVPlayer()
        XCTAssertEqual(player.audiovisualBackgroundPlaybackPolicy, .automatic)
        XCTAssertEqual(
            [AVPlayerAudiovisualBackgroundPlaybackPolicy.automatic, .pauses, .continuesIfPossible].map(\.rawValue),
            [1, 2, 3])
        player.audiovisualBackgroundPlaybackPolicy = .pauses
        XCTAssertEqual(player.audiovisualBackgroundPlaybackPolicy, .pauses)
        XCTAssertEqual(player.preferredVideoDecoderGPURegistryID, 0)
        player.preferredVideoDecoderGPURegistryID = 42
        XCTAssertEqual(player.preferredVideoDecoderGPURegistryID, 42)
        XCTAssertFalse(AVPlayer.eligibleForHDRPlayback)
        XCTAssertEqual(
            AVPlayer.eligibleForHDRPlaybackDidChangeNotification.rawValue,
            "AVPlayerEligibleForHDRPlaybackDidChangeNotification")
        XCTAssertEqual(
            [AVPlayer.HDRMode.hlg, .hdr10, .dolbyVision].map(\.rawValue), [1, 2, 4])
        let clock = VirtualClock(mode: .manual)
        setMasterClock(player, clock)
        XCTAssertTrue(player.sourceClock === clock)
    }

    private func setMasterClock(_ player: some DeprecatedPlayerSpellings, _ clock: CMClock) {
        XCTAssertNil(player.masterClock)
        player.masterClock = clock
        XCTAssertTrue(player.masterClock === clock)
        XCTAssertEqual(type(of: player).availableHDRModes, [])
    }

    func test_item_apertureMode_andHDRMetadata_areStored() throws {
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        XCTAssertEqual(item.videoApertureMode, .cleanAperture)
        XCTAssertEqual(
            [AVVideoApertureMode.cleanAperture, .productionAperture, .encodedPixels].map(\.rawValue),
            ["CleanAperture", "ProductionAperture", "EncodedPixels"])
        item.videoApertureMode = .encodedPixels
        XCTAssertEqual(item.videoApertureMode, .encodedPixels)
        XCTAssertTrue(item.appliesPerFrameHDRDisplayMetadata)
        item.appliesPerFrameHDRDisplayMetadata = false
        XCTAssertFalse(item.appliesPerFrameHDRDisplayMetadata)
    }

    /// Apple's defaults: every layout for video content, multichannel only for audio-only content; a value set wins.
    func test_spatializationFormats_defaultByContent_andASetValueWins() throws {
        XCTAssertEqual(
            [AVAudioSpatializationFormats.monoAndStereo, .multichannel, .monoStereoAndMultichannel].map(\.rawValue),
            [3, 4, 7])
        let player = AVPlayer()
        player.sourceClock = VirtualClock(mode: .manual)
        let video = AVPlayerItem(url: try fixture(.h264AAC))
        let audio = AVPlayerItem(url: try fixture(.audioOnly))
        for item in [video, audio] {
            player.replaceCurrentItem(with: item)
            waitUntil("ready") { item.status != .unknown && !item.tracks.isEmpty }
        }
        XCTAssertEqual(video.allowedAudioSpatializationFormats, .monoStereoAndMultichannel)
        XCTAssertEqual(audio.allowedAudioSpatializationFormats, .multichannel)
        audio.allowedAudioSpatializationFormats = .monoAndStereo
        XCTAssertEqual(audio.allowedAudioSpatializationFormats, .monoAndStereo)
        setSpatializationAllowed(video, false)
        XCTAssertEqual(video.allowedAudioSpatializationFormats, [])
    }

    private func setSpatializationAllowed(_ item: some DeprecatedItemSpellings, _ allowed: Bool) {
        XCTAssertTrue(item.isAudioSpatializationAllowed)
        item.isAudioSpatializationAllowed = allowed
        XCTAssertEqual(item.isAudioSpatializationAllowed, allowed)
    }

    /// A player whose background policy says pause still plays every picture (a Linux process has no background).
    func test_pausesPolicy_changesNothingOfPlayback() throws {
        let v = VirtualPlayer(captureAudio: false)
        v.player.audiovisualBackgroundPlaybackPolicy = .pauses
        let item = AVPlayerItem(url: try fixture(.videoOnly))
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        v.player.play()
        waitUntil("end", timeout: 30) { ends.count > 0 || item.status == .failed }
        XCTAssertEqual(v.frames.indices.compactMap { $0 }, Array(0..<(Fixture.videoOnly.facts.video?.frameCount ?? 0)))
    }
}

/// The deprecated spellings, reached through protocols so that calling them is not a warning.
protocol DeprecatedPlayerSpellings: AnyObject {
    var masterClock: CMClock? { get set }
    static var availableHDRModes: AVPlayer.HDRMode { get }
}
extension AVPlayer: DeprecatedPlayerSpellings {}

protocol DeprecatedItemSpellings: AnyObject {
    var isAudioSpatializationAllowed: Bool { get set }
}
extension AVPlayerItem: DeprecatedItemSpellings {}
