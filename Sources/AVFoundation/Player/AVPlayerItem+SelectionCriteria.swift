import Foundation

extension AVPlayerItem {
    /// Applies the player's media-selection criteria (`AVPlayer.setMediaSelectionCriteria(_:forMediaCharacteristic:)`)
    /// to the groups the app has not chosen in explicitly, when the player applies them automatically: the option in
    /// the most preferred language, among those preferring the criteria's media characteristics. Switches the played
    /// audio live. Called when the item becomes ready and when the player's criteria change.
    func applyMediaSelectionCriteria() {
        guard let player, player.appliesMediaSelectionCriteriaAutomatically, status == .readyToPlay else { return }
        var audibleChanged = false
        for characteristic in [AVMediaCharacteristic.audible, .legible] {
            guard let group = asset.mediaSelectionGroup(forMediaCharacteristic: characteristic),
                let criteria = player.mediaSelectionCriteria(forMediaCharacteristic: characteristic),
                currentMediaSelection.mediaSelectionCriteriaCanBeAppliedAutomatically(to: group)
            else { continue }
            var candidates = AVMediaSelectionGroup.playableMediaSelectionOptions(from: group.options)
            if let languages = criteria.preferredLanguages {
                let matching = AVMediaSelectionGroup.mediaSelectionOptions(
                    from: candidates, filteredAndSortedAccordingToPreferredLanguages: languages)
                if !matching.isEmpty { candidates = matching }
            }
            if let wanted = criteria.preferredMediaCharacteristics {
                let matching = candidates.filter { o in wanted.contains { o.hasMediaCharacteristic($0) } }
                if !matching.isEmpty { candidates = matching }
            }
            guard let option = candidates.first,
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
            applyPlayedStreams()
        }
    }
}
