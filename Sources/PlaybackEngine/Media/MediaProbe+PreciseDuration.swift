import FFmpegBridge
import Foundation

extension MediaProbe {
    /// Tuning: the most packets a precise-duration scan reads (a 24-hour MP3 has about 3.3 million frames).
    static let preciseScanPacketLimit = 5_000_000

    /// `AVURLAssetPreferPreciseDurationAndTimingKey`: when libavformat only estimated the duration from the bit rate
    /// (an MP3 without a Xing/VBRI index, a raw stream), every packet is read once (not decoded) and each stream's
    /// duration becomes where its last packet ends, the container's the longest of them; the description then says it
    /// is precise. Nothing changes when the scan cannot finish (an unreadable input, cancellation, too many packets).
    static func scanPreciseDurations(
        of description: inout MediaDescription, url: URL, options: SourceOptions, cancellation: Cancellation
    ) {
        guard description.isDurationEstimated, !description.isLive else { return }
        guard
            let input = try? FormatContext(
                url: url.mediaLocation,
                options: options.libavformatOptions(isLocal: url.isFileURL, location: url.mediaLocation),
                interrupt: cancellation.interrupt)
        else { return }
        var ends = [Int64?](repeating: nil, count: description.streams.count)
        let packet = Packet()
        var count = 0
        while count < preciseScanPacketLimit {
            guard let result = try? input.read(into: packet) else { return }
            if case .endOfFile = result { break }
            count += 1
            let index = packet.streamIndex
            if index >= 0, index < ends.count, let pts = packet.pts ?? packet.dts {
                let end = pts + max(0, packet.duration)
                ends[index] = max(ends[index] ?? end, end)
            }
            packet.unref()
        }
        guard count < preciseScanPacketLimit, !cancellation.isCancelled else { return }
        var longest: Int64?
        for (i, end) in ends.enumerated() {
            guard let end else { continue }
            let start = description.streams[i].startTime ?? 0
            description.streams[i].duration = end - start
            let microseconds = MediaRational.rescale(
                end - start, from: description.streams[i].timeBase, to: MediaRational(1, 1_000_000))
            longest = max(longest ?? microseconds, microseconds)
        }
        guard let longest else { return }
        description.durationMicroseconds = longest
        description.isDurationEstimated = false
    }
}
