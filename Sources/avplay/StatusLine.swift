import AVFoundation

/// What the status line shows besides what it reads from the player itself.
struct StatusExtras {
    /// The selected audible option's name, when the asset has an audible group.
    var audio: String?
    /// The selected legible option's name (`off` when none), when the asset has a legible group.
    var subtitles: String?
    /// Whether seeks are exact (zero tolerances).
    var exactSeeking = false
    /// The rate playback resumes at (shown while paused, when the player's rate is 0).
    var rate: Float = 1
    /// What the last key did, or why it did nothing.
    var message = ""
}

/// The one-line status on standard error, rewritten in place:
/// `▶ playing 0:03.2 / 0:10.0 [=====---  ] 1.00× vol 100% A+V drop 0 a:English s:off fast  demo.mp4 · seek +5 s`.
final class StatusLine: @unchecked Sendable {
    let enabled: Bool
    init(enabled: Bool) { self.enabled = enabled }

    func show(_ player: AVPlayer, _ extras: StatusExtras) {
        guard enabled, let item = player.currentItem else { return }
        let t = item.currentTime().seconds
        let d = item.duration.seconds
        var fields = [
            state(player), "\(clock(t)) / \(d.isFinite ? clock(d) : "--:--")", "[\(bar(item, t, d))]",
            String(format: "%.2f×", player.rate != 0 ? player.rate : extras.rate),
            player.isMuted ? "muted" : "vol \(Int((player.volume * 100).rounded()))%", mediaState(item),
        ]
        if let dropped = item.accessLog()?.events.last?.numberOfDroppedVideoFrames, dropped >= 0 {
            fields.append("drop \(dropped)")
        }
        if let stream = streamState(item, t) { fields.append(stream) }
        if let audio = extras.audio { fields.append("a:\(audio)") }
        if let subtitles = extras.subtitles { fields.append("s:\(subtitles)") }
        fields.append(extras.exactSeeking ? "exact" : "fast")
        var line = fields.joined(separator: " ")
        line += "  " + ((item.asset as? AVURLAsset)?.url.lastPathComponent ?? "")
        if !extras.message.isEmpty { line += " · " + extras.message }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8))
    }

    func clear() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    /// `m:ss.s`, or `--:--` for a time that is not a number.
    func clock(_ s: Double) -> String {
        guard s.isFinite else { return "--:--" }
        let m = Int(s) / 60
        return String(format: "%d:%04.1f", m, s - Double(m * 60))
    }

    private func state(_ player: AVPlayer) -> String {
        switch player.timeControlStatus {
        case .playing: return "▶ playing"
        case .paused: return "⏸ paused"
        case .waitingToPlayAtSpecifiedRate: return "… waiting"
        }
    }

    /// Played part as `=`, loaded-but-unplayed as `-`.
    private func bar(_ item: AVPlayerItem, _ t: Double, _ d: Double) -> String {
        let width = 24
        guard d.isFinite && d > 0 else { return String(repeating: " ", count: width) }
        let done = Int((min(max(t / d, 0), 1) * Double(width)).rounded())
        var loaded = done
        if let range = item.loadedTimeRanges.last?.timeRangeValue, range.end.seconds.isFinite {
            loaded = max(done, Int((min(range.end.seconds / d, 1) * Double(width)).rounded()))
        }
        return String(repeating: "=", count: done) + String(repeating: "-", count: loaded - done)
            + String(repeating: " ", count: width - loaded)
    }

    /// For a stream (HLS): the variant playing (its resolution and peak bit rate) and how far ahead it is buffered,
    /// e.g. `640×360@580k buf+8.0s`; nil for files.
    private func streamState(_ item: AVPlayerItem, _ t: Double) -> String? {
        guard item.status == .readyToPlay, let asset = item.asset as? AVURLAsset, !asset.url.isFileURL else {
            return nil
        }
        let variants = asset.variants
        var parts: [String] = []
        let size = item.presentationSize
        if let playing = variants.first(where: { $0.videoAttributes?.presentationSize == size }) ?? variants.first {
            let resolution = playing.videoAttributes.map {
                "\(Int($0.presentationSize.width))×\(Int($0.presentationSize.height))"
            }
            let rate = playing.peakBitRate.map { "\(Int($0 / 1000))k" }
            parts.append([resolution, rate].compactMap { $0 }.joined(separator: "@"))
        }
        if let range = item.loadedTimeRanges.last?.timeRangeValue, range.end.seconds.isFinite {
            parts.append(String(format: "buf+%.1fs", max(0, range.end.seconds - t)))
        }
        if item.duration.isIndefinite { parts.append("live") }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// Which kinds of enabled tracks the item presents: `A+V`, `V`, `A` (or `-` before it is ready).
    private func mediaState(_ item: AVPlayerItem) -> String {
        let types = item.tracks.filter(\.isEnabled).compactMap { $0.assetTrack?.mediaType }
        let audio = types.contains(.audio)
        let video = types.contains(.video)
        switch (audio, video) {
        case (true, true): return "A+V"
        case (false, true): return "V"
        case (true, false): return "A"
        case (false, false): return "-"
        }
    }
}
