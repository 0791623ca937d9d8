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

    /// Applies the player's media-selection criteria (`AVPlayer.setMediaSelectionCriteria(_:forMediaCharacteristic:)`)
    /// to the groups the app has not chosen in explicitly, when the player applies them automatically (see
    /// ``criteriaChoice(in:)``). Switches the played audio live when it changes. Called while the item becomes ready
    /// (`becomingReady`: before its status is published; the engine already plays the criteria's audio, chosen when
    /// it opened the item) and when the player's criteria change.
    func applyMediaSelectionCriteria(becomingReady: Bool = false) {
        guard becomingReady || status == .readyToPlay else { return }
        var audibleChanged = false
        for characteristic in [AVMediaCharacteristic.audible, .legible] {
            guard let group = asset.mediaSelectionGroup(forMediaCharacteristic: characteristic),
                let option = criteriaChoice(in: group),
                currentMediaSelection.selectedMediaOption(in: group) != option
            else { continue }
            set(\.currentMediaSelection) { s in
                if s.selection == nil {
                    s.selection = asset.preferredMediaSelection.mutableCopy() as? AVMutableMediaSelection
                }
                s.selection?.automatic[ObjectIdentifier(group)] = option
            }
            if characteristic == .audible {
                for t in tracks where t.assetTrack?.mediaType == .audio {
                    t.setEnabledSilently(t.assetTrack?.trackID == option.trackID)
                }
                audibleChanged = true
            }
        }
        if audibleChanged {
            NotificationCenter.default.post(name: AVPlayerItem.mediaSelectionDidChangeNotification, object: self)
            if !becomingReady { applyPlayedStreams() }
        }
        applyLegibleStream()
    }
}
