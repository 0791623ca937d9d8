import Foundation

extension AVPlayerItem {
    /// The option the player's media-selection criteria choose in `group` — the most preferred language, among
    /// those preferring the criteria's media characteristics — when they apply: the player applies criteria
    /// automatically, has criteria for the group's characteristic, and the app has not chosen in the group.
    func criteriaChoice(in group: AVMediaSelectionGroup) -> AVMediaSelectionOption? {
        guard let player, player.appliesMediaSelectionCriteriaAutomatically,
            let characteristic = [AVMediaCharacteristic.audible, .legible].first(where: {
                asset.mediaSelectionGroup(forMediaCharacteristic: $0) === group
            }),
            let criteria = player.mediaSelectionCriteria(forMediaCharacteristic: characteristic),
            currentMediaSelection.mediaSelectionCriteriaCanBeAppliedAutomatically(to: group)
        else { return nil }
        // Options a presentation marks as not for automatic selection (HLS AUTOSELECT=NO) are left to the app.
        var candidates = AVMediaSelectionGroup.playableMediaSelectionOptions(from: group.options).filter(
            \.isAutoselectable)
        if let languages = criteria.preferredLanguages {
            let matching = AVMediaSelectionGroup.mediaSelectionOptions(
                from: candidates, filteredAndSortedAccordingToPreferredLanguages: languages)
            if !matching.isEmpty { candidates = matching }
        }
        if let wanted = criteria.preferredMediaCharacteristics {
            let matching = candidates.filter { o in wanted.contains { o.hasMediaCharacteristic($0) } }
            if !matching.isEmpty { candidates = matching }
        }
        return candidates.first
    }

    /// The forced-only subtitles shown when no other legible option is: Apple selects a legible option with
    /// ``AVMediaCharacteristic/containsOnlyForcedSubtitles`` "when the user hasn't selected a legible option … and its
    /// locale matches the locale of the selected audible language option". Here: when the player applies selection
    /// criteria automatically, the app has not chosen in the legible group, and the group has no default option
    /// other than a forced-only one, the option associated with the selected audio
    /// (``AVMediaSelectionOption/associatedMediaSelectionOption(in:)``).
    func forcedSubtitleChoice(in group: AVMediaSelectionGroup) -> AVMediaSelectionOption? {
        guard let player, player.appliesMediaSelectionCriteriaAutomatically,
            currentMediaSelection.mediaSelectionCriteriaCanBeAppliedAutomatically(to: group),
            group.defaultOption.map({ $0.hasMediaCharacteristic(.containsOnlyForcedSubtitles) }) ?? true,
            let audible = asset.mediaSelectionGroup(forMediaCharacteristic: .audible),
            let audio = currentMediaSelection.selectedMediaOption(in: audible)
        else { return nil }
        return audio.associatedMediaSelectionOption(in: group)
    }

    /// Applies the player's media-selection criteria (`AVPlayer.setMediaSelectionCriteria(_:forMediaCharacteristic:)`)
    /// to the groups the app has not chosen in explicitly, when the player applies them automatically (see
    /// ``criteriaChoice(in:)``), and where nothing chooses a legible option, the forced subtitles of the audio's
    /// language (``forcedSubtitleChoice(in:)``). Switches the played audio live when it changes. Called while the item
    /// becomes ready (`becomingReady`: before its status is published; the engine already plays the criteria's audio,
    /// chosen when it opened the item), when the player's criteria change, and when the audio selection changes.
    func applyMediaSelectionCriteria(becomingReady: Bool = false) {
        guard becomingReady || status == .readyToPlay else { return }
        var changed = false
        var audibleChanged = false
        for characteristic in [AVMediaCharacteristic.audible, .legible] {
            guard let group = asset.mediaSelectionGroup(forMediaCharacteristic: characteristic),
                currentMediaSelection.mediaSelectionCriteriaCanBeAppliedAutomatically(to: group)
            else { continue }
            let key = ObjectIdentifier(group)
            let option: AVMediaSelectionOption?
            if characteristic == .legible {
                // Forced subtitles follow the audio chosen just above; nothing chosen clears an earlier choice.
                option = criteriaChoice(in: group) ?? forcedSubtitleChoice(in: group)
                guard currentMediaSelection.automatic[key] != option else { continue }
            } else {
                guard let o = criteriaChoice(in: group), currentMediaSelection.selectedMediaOption(in: group) != o
                else { continue }
                option = o
            }
            set(\.currentMediaSelection) { s in
                if s.selection == nil {
                    s.selection = asset.preferredMediaSelection.mutableCopy() as? AVMutableMediaSelection
                }
                s.selection?.automatic[key] = option
            }
            changed = true
            if characteristic == .audible {
                for t in tracks where t.assetTrack?.mediaType == .audio {
                    t.setEnabledSilently(t.assetTrack?.trackID == option?.trackID)
                }
                audibleChanged = true
            }
        }
        if changed {
            NotificationCenter.default.post(name: AVPlayerItem.mediaSelectionDidChangeNotification, object: self)
        }
        if audibleChanged && !becomingReady { applyPlayedStreams() }
        applyLegibleStream()
    }
}
