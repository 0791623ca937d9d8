import Foundation
import PlaybackEngine

// The subtitle stream the engine decodes: the option selected in the legible group.
extension AVPlayerItem {
    /// Tells the item's session which subtitle stream to decode: the selected legible option's (none when the
    /// group has no selection). Called when the item becomes ready and when the legible selection changes.
    func applyLegibleStream() {
        guard let (session, _) = sessionAndEngine() else { return }
        var stream: Int?
        if let group = asset.mediaSelectionGroup(forMediaCharacteristic: .legible),
            let option = currentMediaSelection.selectedMediaOption(in: group)
        {
            stream = option.streamIndex
        }
        session.selectSubtitleStream(stream)
    }
}
