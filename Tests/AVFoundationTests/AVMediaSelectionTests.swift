import AVFoundation
import TestSupport
import XCTest

final class AVMediaSelectionTests: XCTestCase {
    func test_groupsFromTrackLanguagesAndTitles() async throws {
        let asset = AVURLAsset(url: try fixture(.multiAudioSubtitles))
        let characteristics = try await asset.load(.availableMediaCharacteristicsWithMediaSelectionOptions)
        XCTAssertEqual(characteristics, [.audible, .legible])

        let audibleGroup = try await asset.loadMediaSelectionGroup(for: .audible)
        let audible = try XCTUnwrap(audibleGroup)
        XCTAssertEqual(audible.options.map(\.displayName), ["English", "Français"])
        XCTAssertEqual(audible.options.map(\.extendedLanguageTag), ["en", "fr"])
        XCTAssertEqual(audible.options.map(\.mediaType), [.audio, .audio])
        XCTAssertEqual(audible.options[1].locale?.identifier, "fr")
        XCTAssertEqual(audible.defaultOption, audible.options[0])
        XCTAssertFalse(audible.allowsEmptySelection)
        XCTAssertTrue(audible.options.allSatisfy { $0.isPlayable && $0.hasMediaCharacteristic(.audible) })

        let legibleGroup = try await asset.loadMediaSelectionGroup(for: .legible)
        let legible = try XCTUnwrap(legibleGroup)
        XCTAssertTrue(legible.allowsEmptySelection)
        XCTAssertEqual(legible.options.count, 2)
        XCTAssertEqual(legible.options.map(\.mediaType), [.subtitle, .subtitle])

        let french = AVMediaSelectionGroup.mediaSelectionOptions(
            from: audible.options, filteredAndSortedAccordingToPreferredLanguages: ["fr-FR", "en"])
        XCTAssertEqual(french.map(\.displayName), ["Français", "English"])
        XCTAssertEqual(
            AVMediaSelectionGroup.mediaSelectionOptions(from: audible.options, with: Locale(identifier: "fr_CA"))
                .map(\.displayName), ["Français"])

        let plist = audible.options[1].propertyList()
        XCTAssertEqual(audible.mediaSelectionOption(withPropertyList: plist), audible.options[1])
    }

    func test_preferredSelection_andMutableSelection() async throws {
        let asset = AVURLAsset(url: try fixture(.multiAudioSubtitles))
        let selection = try await asset.load(.preferredMediaSelection)
        let audibleGroup = try await asset.loadMediaSelectionGroup(for: .audible)
        let audible = try XCTUnwrap(audibleGroup)
        let legibleGroup = try await asset.loadMediaSelectionGroup(for: .legible)
        let legible = try XCTUnwrap(legibleGroup)
        XCTAssertEqual(selection.selectedMediaOption(in: audible)?.displayName, "English")
        XCTAssertTrue(selection.mediaSelectionCriteriaCanBeAppliedAutomatically(to: audible))

        let mutable = try XCTUnwrap(selection.mutableCopy() as? AVMutableMediaSelection)
        mutable.select(audible.options[1], in: audible)
        XCTAssertEqual(mutable.selectedMediaOption(in: audible)?.displayName, "Français")
        XCTAssertFalse(mutable.mediaSelectionCriteriaCanBeAppliedAutomatically(to: audible))
        mutable.select(nil, in: audible)  // not allowed: the audible group needs a selection
        XCTAssertEqual(mutable.selectedMediaOption(in: audible)?.displayName, "Français")
        mutable.select(legible.options[0], in: legible)
        XCTAssertEqual(mutable.selectedMediaOption(in: legible), legible.options[0])
        mutable.select(nil, in: legible)
        XCTAssertNil(mutable.selectedMediaOption(in: legible))

        let all = try await asset.load(.allMediaSelections)
        XCTAssertEqual(all.count, 2 * 3)  // 2 audio options × (2 subtitles + off)
    }

    func test_singleAudioFile_hasNoGroups() async throws {
        let asset = AVURLAsset(url: try fixture(.h264AAC))
        let characteristics = try await asset.load(.availableMediaCharacteristicsWithMediaSelectionOptions)
        XCTAssertEqual(characteristics, [])
        let group = try await asset.loadMediaSelectionGroup(for: .audible)
        XCTAssertNil(group)
    }
}
