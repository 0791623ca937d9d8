import Foundation

/// The streams an item plays, following its media selection and its tracks' `isEnabled`.
extension AVPlayerItem {
    /// Re-chooses the played streams from the media selection and the tracks' `isEnabled`, and
    /// switches the engine to them during playback (it continues from the same time).
    func applyPlayedStreams() {
        guard let (session, engine) = sessionAndEngine(), status == .readyToPlay else { return }
        let tracks = self.tracks
        let enabled = Set(tracks.filter(\.isEnabled).compactMap { $0.assetTrack?.streamIndex })
        let video = tracks.compactMap(\.assetTrack).first {
            $0.mediaType == .video && $0.isPlayable && enabled.contains($0.streamIndex)
        }?.streamIndex
        var audio: Int?
        let audioTracks = tracks.compactMap(\.assetTrack).filter { $0.mediaType == .audio && $0.isPlayable }
        if let group = asset.mediaSelectionGroup(forMediaCharacteristic: .audible),
            let option = currentMediaSelection.selectedMediaOption(in: group)
        {
            audio = option.streamIndex
        } else {
            audio = audioTracks.first { enabled.contains($0.streamIndex) }?.streamIndex
        }
        // A disabled audio track is silent whatever the selection says.
        if let a = audio, let track = tracks.first(where: { $0.assetTrack?.streamIndex == a }), !track.isEnabled {
            audio = nil
        }
        // Keep the item's tracks in step: the selected audio track is the enabled one.
        for t in tracks where t.assetTrack?.mediaType == .audio {
            t.setEnabledSilently(t.assetTrack?.streamIndex == audio)
        }
        applyAudioMix(audioStream: audio)
        engine.setStreams(session, video: video, audio: audio)
    }
}
