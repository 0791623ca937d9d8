import Foundation
import PlaybackEngine

// What an access-log event says of a period's network transfers (HLS): each field from the transfers the source
// recorded, or left at Apple's "unknown" (negative) when they do not tell it.
extension AVPlayerItemAccessLogEvent {
    /// Fills the transfer fields from `period`, the transfers finished during the event's period (oldest first);
    /// `mainStreams` says what the main playlist's segments carry, `mainPackets` the bytes of the packets demuxed
    /// from them during the period (all, and audio).
    ///
    /// - `numberOfMediaRequests`, `numberOfBytesTransferred`, `transferDuration`, `observedBitrate` and its minimum,
    ///   maximum and spread, `segmentsDownloadedDuration`: the media requests' counts, bytes and download times.
    /// - `serverAddress`: the host of the last media request; `numberOfServerAddressChanges`: how often the host
    ///   changed from one media request to the next (in the order they started).
    /// - `downloadOverdue`: the media requests whose download took longer than the media they carried (a segment
    ///   that arrived slower than real time); the download time is the network's alone (see `NetworkLog.Transfer`).
    /// - `averageVideoBitrate`, `averageAudioBitrate`: see ``fillAverageBitrates(media:mainStreams:mainPackets:)``.
    func fill(
        fromTransfers period: [NetworkLog.Transfer], mainStreams: NetworkLog.MainStreams?,
        mainPackets: NetworkLog.PacketBytes
    ) {
        guard !period.isEmpty else { return }
        let media = period.filter { $0.kind == .media }
        numberOfMediaRequests = media.count
        // No request goes over a cellular (WWAN) interface: Linux has none that the player tells apart.
        mediaRequestsWWAN = 0
        numberOfBytesTransferred = period.reduce(0) { $0 + $1.bytes }
        let mediaBytes = media.reduce(Int64(0)) { $0 + $1.bytes }
        let transferTime = media.reduce(0) { $0 + $1.duration }
        transferDuration = transferTime
        if transferTime > 0 { observedBitrate = Double(mediaBytes) * 8 / transferTime }
        // Per request: the lowest, highest and their spread (requests too short to time say nothing).
        let rates = media.filter { $0.duration > 0 }.map { Double($0.bytes) * 8 / $0.duration }
        if let low = rates.min(), let high = rates.max() {
            observedMinimum = low
            observedMaximum = high
            let mean = rates.reduce(0, +) / Double(rates.count)
            observedBitrateStandardDeviation =
                (rates.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(rates.count)).squareRoot()
        }
        segmentsDownloadedDuration = media.reduce(0) { $0 + $1.mediaDuration }
        serverAddress = (media.last ?? period.last)?.serverAddress
        let addresses = media.sorted { $0.start < $1.start }.compactMap(\.serverAddress)
        numberOfServerAddressChanges = zip(addresses, addresses.dropFirst()).filter { $0 != $1 }.count
        downloadOverdue = media.filter { $0.mediaDuration > 0 && $0.duration > $0.mediaDuration }.count
        if let indicated = media.last(where: { $0.indicatedBitrate != nil })?.indicatedBitrate {
            indicatedBitrate = indicated
        }
        fillAverageBitrates(media: media, mainStreams: mainStreams, mainPackets: mainPackets)
    }

    /// Apple's "accumulated video (audio) track bitrate, weighted by the downloaded duration of each segment": each
    /// segment's bit rate (its bytes × 8 over its media duration) weighted by that duration, which comes to the
    /// bytes of the segments over their media seconds.
    ///
    /// - Video: the main playlist's segments when they carry video. Muxed with audio, the bit rate is the
    ///   combined content's, as Apple documents `averageVideoBitrate` for muxed media.
    /// - Audio: the alternate audio rendition's segments when one was fetched; else the main segments when they
    ///   carry audio alone; else, muxed, the main segments' audio share: their bytes split by the sizes of the
    ///   packets demuxed from them during the period, audio against all (container overhead divides in the same
    ///   proportion).
    /// - Unknown (−1) otherwise: no such segment downloaded, a source that did not say what its segments carry, no
    ///   audio packet demuxed.
    func fillAverageBitrates(
        media: [NetworkLog.Transfer], mainStreams: NetworkLog.MainStreams?, mainPackets: NetworkLog.PacketBytes
    ) {
        func rate(_ transfers: [NetworkLog.Transfer], share: Double = 1) -> Double? {
            let seconds = transfers.reduce(0) { $0 + $1.mediaDuration }
            let bytes = transfers.reduce(Int64(0)) { $0 + $1.bytes }
            return seconds > 0 && bytes > 0 ? Double(bytes) * 8 * share / seconds : nil
        }
        let main = media.filter { $0.content == .main && $0.mediaDuration > 0 }
        let renditions = media.filter { $0.content == .audioRendition && $0.mediaDuration > 0 }
        if mainStreams?.video == true, let video = rate(main) { averageVideoBitrate = video }
        if let audio = rate(renditions) {
            averageAudioBitrate = audio
        } else if let streams = mainStreams, streams.audio {
            if !streams.video {
                averageAudioBitrate = rate(main) ?? -1
            } else if mainPackets.all > 0, mainPackets.audio > 0 {
                averageAudioBitrate = rate(main, share: Double(mainPackets.audio) / Double(mainPackets.all)) ?? -1
            }
        }
    }
}
