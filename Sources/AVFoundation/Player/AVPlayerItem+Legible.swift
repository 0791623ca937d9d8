import Foundation
import PlaybackEngine

// The subtitle stream the engine decodes: the option selected in the legible group.
extension AVPlayerItem {
    /// Tells the item's session which subtitle stream to decode: the selected legible option's (none when the
    /// group has no selection; a closed-caption option's captions — its CEA-608 channel or CEA-708 service — are
    /// read from its video stream). Called when the item becomes ready and when the legible selection changes.
    func applyLegibleStream() {
        guard let (session, engine) = sessionAndEngine() else { return }
        var stream: Int?
        var closedCaptions = false
        var service: ClosedCaptionService? = .cea608(channel: 1)
        if let group = asset.mediaSelectionGroup(forMediaCharacteristic: .legible),
            let option = currentMediaSelection.selectedMediaOption(in: group)
        {
            stream = option.streamIndex
            closedCaptions = option.mediaType == .closedCaption
            service = option.closedCaptionService
        }
        // A command: the engine thread starts the reader (whose thread opens the stream), never this one.
        engine.configure(session, .subtitleStream(stream, closedCaptions: closedCaptions, captionService: service))
    }
}
