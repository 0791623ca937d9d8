import Foundation
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// Forced subtitles on `forced_subs.mkv` (audio eng default and fra; subtitles "English", "English (forced)",
/// "Français (forced)", none default): Apple selects the forced-only option of the audio's language when nothing else
/// is selected in the legible group, and associates audible options with those options.
final class ForcedSubtitleTests: XCTestCase {
    private func groups(_ asset: AVAsset) throws -> (audible: AVMediaSelectionGroup, legible: AVMediaSelectionGroup) {
        (
            try XCTUnwrap(asset.mediaSelectionGroup(forMediaCharacteristic: .audible)),
            try XCTUnwrap(asset.mediaSelectionGroup(forMediaCharacteristic: .legible))
        )
    }

    private func option(_ group: AVMediaSelectionGroup, _ name: String) throws -> AVMediaSelectionOption {
        try XCTUnwrap(group.options.first { $0.displayName == name }, "no option \(name) in \(group.options)")
    }

    private static func forcedTexts(_ language: String) -> [[String]] {
        (1...3).flatMap { [["Forced \(language) \($0)"], []] }
    }

    func test_forcedOptions_areMarked_andAssociatedWithTheAudioOfTheirLanguage() throws {
        let asset = AVURLAsset(url: try fixture(.forcedSubtitles))
        let (audible, legible) = try groups(asset)
        XCTAssertEqual(legible.options.map(\.displayName), ["English", "English (forced)", "Français (forced)"])
        XCTAssertNil(legible.defaultOption)
        XCTAssertEqual(
            legible.options.map { $0.hasMediaCharacteristic(.containsOnlyForcedSubtitles) }, [false, true, true])
        // What an app lists in its subtitle menu (Apple's sample code filters the forced-only options out).
        XCTAssertEqual(
            AVMediaSelectionGroup.mediaSelectionOptions(
                from: legible.options, withoutMediaCharacteristics: [.containsOnlyForcedSubtitles]
            ).map(\.displayName), ["English"])
        let english = try option(audible, "English")
        let french = try option(audible, "Français")
        XCTAssertEqual(english.associatedMediaSelectionOption(in: legible), try option(legible, "English (forced)"))
        XCTAssertEqual(french.associatedMediaSelectionOption(in: legible), try option(legible, "Français (forced)"))
        XCTAssertEqual(try option(legible, "Français (forced)").associatedMediaSelectionOption(in: audible), french)
        XCTAssertNil(try option(legible, "English").associatedMediaSelectionOption(in: audible))
        XCTAssertNil(english.associatedMediaSelectionOption(in: audible))
    }

    /// A player with the fixture, `prepare` applied before it is ready, a legible output, played to the end once
    /// the cues of the selected option (`subtitles`: one is selected) are decoded.
    private func play(
        subtitles: Bool = true,
        prepare: (AVPlayer, AVPlayerItem) throws -> Void = { _, _ in },
        whenReady: (AVPlayerItem) throws -> Void = { _ in }
    ) throws -> (AVPlayerItem, [[String]]) {
        let v = VirtualPlayer(mode: .untimed, captureAudio: false)
        let item = AVPlayerItem(url: try fixture(.forcedSubtitles))
        let output = AVPlayerItemLegibleOutput()
        let cues = LegibleCueLog(label: "forced-cues")
        output.setDelegate(cues, queue: cues.queue)
        item.add(output)
        try prepare(v.player, item)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        try whenReady(item)
        if subtitles {
            // The untimed clock plays as fast as it decodes: every cue read first (LegibleOutputTests does the same).
            waitUntil("cues decoded") { item.read { $0.session }?.subtitleCues?.isComplete == true }
        }
        let ended = NotificationLog(.AVPlayerItemDidPlayToEndTime, object: item)
        v.player.play()
        waitUntil("end") { ended.count > 0 }
        return (item, cues.texts)
    }

    func test_withNothingSelected_theForcedSubtitlesOfTheAudiosLanguagePlay() throws {
        let (item, texts) = try play()
        let (_, legible) = try groups(item.asset)
        XCTAssertEqual(item.currentMediaSelection.selectedMediaOption(in: legible)?.displayName, "English (forced)")
        XCTAssertTrue(item.currentMediaSelection.mediaSelectionCriteriaCanBeAppliedAutomatically(to: legible))
        XCTAssertEqual(texts, Self.forcedTexts("eng"))
    }

    func test_choosingFrenchAudio_switchesToTheFrenchForcedSubtitles() throws {
        let (item, texts) = try play(whenReady: { item in
            let (audible, _) = try self.groups(item.asset)
            item.select(try self.option(audible, "Français"), in: audible)
        })
        let (_, legible) = try groups(item.asset)
        XCTAssertEqual(item.currentMediaSelection.selectedMediaOption(in: legible)?.displayName, "Français (forced)")
        XCTAssertEqual(texts, Self.forcedTexts("fra"))
    }

    func test_frenchAudioByCriteria_bringsTheFrenchForcedSubtitles() throws {
        let (item, texts) = try play(prepare: { player, _ in
            player.setMediaSelectionCriteria(
                AVPlayerMediaSelectionCriteria(preferredLanguages: ["fr"], preferredMediaCharacteristics: nil),
                forMediaCharacteristic: .audible)
        })
        let (audible, _) = try groups(item.asset)
        XCTAssertEqual(item.currentMediaSelection.selectedMediaOption(in: audible)?.displayName, "Français")
        XCTAssertEqual(texts, Self.forcedTexts("fra"))
    }

    func test_anExplicitChoice_wins_andAutomaticSelectionBringsTheForcedOnesBack() throws {
        let (_, texts) = try play(whenReady: { item in
            let (_, legible) = try self.groups(item.asset)
            item.select(try self.option(legible, "English"), in: legible)
            XCTAssertFalse(item.currentMediaSelection.mediaSelectionCriteriaCanBeAppliedAutomatically(to: legible))
        })
        XCTAssertEqual(texts, (1...3).flatMap { [["Hello \($0)"], []] })
        // Subtitles off (an explicit empty choice): no forced subtitles either.
        let (_, off) = try play(
            subtitles: false,
            whenReady: { item in
                let (_, legible) = try self.groups(item.asset)
                item.select(nil, in: legible)
            })
        XCTAssertEqual(off, [])
        // Back to automatic: the forced ones again.
        let (_, automatic) = try play(whenReady: { item in
            let (_, legible) = try self.groups(item.asset)
            item.select(nil, in: legible)
            item.selectMediaOptionAutomatically(in: legible)
        })
        XCTAssertEqual(automatic, Self.forcedTexts("eng"))
    }

    func test_notAppliedWhenThePlayerDoesNotApplyCriteriaAutomatically() throws {
        let (item, texts) = try play(
            subtitles: false, prepare: { player, _ in player.appliesMediaSelectionCriteriaAutomatically = false })
        let (_, legible) = try groups(item.asset)
        XCTAssertNil(item.currentMediaSelection.selectedMediaOption(in: legible))
        XCTAssertEqual(texts, [])
    }
}
