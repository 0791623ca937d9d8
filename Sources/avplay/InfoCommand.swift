import AVFoundation

/// `avplay info FILE|URL [--json]`.
enum InfoCommand {
    static func run(_ arguments: [String]) async -> Int32 {
        var json = false
        var inputs: [String] = []
        for a in arguments {
            if a == "--json" {
                json = true
            } else if a.hasPrefix("-") && a != "-" {
                Terminal.error("info: unknown option “\(a)”")
                return 2
            } else {
                inputs.append(a)
            }
        }
        guard inputs.count == 1 else {
            Terminal.error("info: give exactly one FILE or URL")
            return 2
        }
        let url = mediaURL(inputs[0])
        let asset = AVURLAsset(url: url)
        let report: AssetReport
        do {
            report = try await AssetReport(asset: asset)
        } catch {
            Terminal.error(error.localizedDescription)
            return 1
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = (try? encoder.encode(report)) ?? Data()
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(report.text)
        }
        if !report.playable {
            Terminal.error(report.playabilityNote ?? "“\(url.lastPathComponent)” can’t be played.")
            return 1
        }
        return 0
    }
}

/// A CMTime as JSON: exact value/timescale plus seconds for people.
struct TimeReport: Encodable {
    var value: Int64?
    var timescale: Int32?
    var seconds: Double?
    var kind: String

    init(_ t: CMTime) {
        if t.isNumeric {
            value = t.value
            timescale = t.timescale
            seconds = t.seconds
            kind = "numeric"
        } else {
            kind =
                t.isIndefinite
                ? "indefinite" : t.isPositiveInfinity ? "+infinity" : t.isNegativeInfinity ? "-infinity" : "invalid"
        }
    }
}

struct AssetReport: Encodable {
    struct Track: Encodable {
        var trackID: Int32
        var mediaType: String
        var codec: String
        var codecName: String?
        var profile: String?
        var playable: Bool
        var enabled: Bool
        var timeRange: [String: TimeReport]
        var language: String?
        var extendedLanguageTag: String?
        var estimatedDataRate: Float
        // Video
        var naturalSize: [String: Double]?
        var presentationSize: [String: Double]?
        var preferredTransform: [Double]?
        var nominalFrameRate: Float?
        var requiresFrameReordering: Bool?
        // Audio
        var sampleRate: Double?
        var channels: UInt32?
        var channelLayout: String?
        var title: String?
    }
    struct Metadata: Encodable {
        var identifier: String?
        var commonKey: String?
        var value: String?
    }
    struct Option: Encodable {
        var displayName: String
        var extendedLanguageTag: String?
        var mediaType: String
        var isDefault: Bool
        var playable: Bool
    }
    struct Group: Encodable {
        var characteristic: String
        var allowsEmptySelection: Bool
        var options: [Option]
    }
    /// One variant of a streamed presentation (HLS).
    struct Variant: Encodable {
        var peakBitRate: Double?
        var averageBitRate: Double?
        var width: Double?
        var height: Double?
        var frameRate: Double?
    }

    var url: String
    var duration: TimeReport
    var playable: Bool
    var providesPreciseDurationAndTiming: Bool
    var tracks: [Track]
    var metadata: [Metadata]
    var mediaSelectionGroups: [Group]
    var variants: [Variant]
    var playabilityNote: String?

    init(asset: AVURLAsset) async throws {
        let (duration, tracks, playable, precise, metadata, characteristics) = try await asset.load(
            .duration, .tracks, .isPlayable, .providesPreciseDurationAndTiming, .metadata,
            .availableMediaCharacteristicsWithMediaSelectionOptions)
        url = asset.url.isFileURL ? asset.url.path : asset.url.absoluteString
        self.duration = TimeReport(duration)
        self.playable = playable
        providesPreciseDurationAndTiming = precise
        var trackReports: [Track] = []
        for t in tracks {
            trackReports.append(try await Self.track(t))
        }
        self.tracks = trackReports
        self.metadata = metadata.map {
            Metadata(identifier: $0.identifier?.rawValue, commonKey: $0.commonKey?.rawValue, value: $0.stringValue)
        }
        var groups: [Group] = []
        for c in characteristics {
            guard let g = try await asset.loadMediaSelectionGroup(for: c) else { continue }
            groups.append(
                Group(
                    characteristic: c.rawValue, allowsEmptySelection: g.allowsEmptySelection,
                    options: g.options.map {
                        Option(
                            displayName: $0.displayName, extendedLanguageTag: $0.extendedLanguageTag,
                            mediaType: $0.mediaType.rawValue, isDefault: $0 == g.defaultOption, playable: $0.isPlayable)
                    }))
        }
        mediaSelectionGroups = groups
        variants = try await asset.load(.variants).map { v in
            let size = v.videoAttributes?.presentationSize
            return Variant(
                peakBitRate: v.peakBitRate, averageBitRate: v.averageBitRate,
                width: size.map { Double($0.width) }, height: size.map { Double($0.height) },
                frameRate: v.videoAttributes?.nominalFrameRate)
        }
        if !playable {
            let media = trackReports.filter {
                $0.mediaType == AVMediaType.video.rawValue || $0.mediaType == AVMediaType.audio.rawValue
            }
            if media.isEmpty {
                playabilityNote = "“\(asset.url.lastPathComponent)” contains no audio or video."
            } else {
                let codecs = media.map { "\($0.codecName ?? $0.codec)" }.joined(separator: ", ")
                playabilityNote = "“\(asset.url.lastPathComponent)” can’t be played: no decoder for \(codecs)."
            }
        }
    }

    static func track(_ t: AVAssetTrack) async throws -> Track {
        let (formats, timeRange, playable, enabled, language, tag, rate) = try await t.load(
            .formatDescriptions, .timeRange, .isPlayable, .isEnabled, .languageCode, .extendedLanguageTag,
            .estimatedDataRate)
        let format = formats.first
        let subType = format.map { fourCC($0.mediaSubType.rawValue) } ?? "?"
        var report = Track(
            trackID: t.trackID, mediaType: t.mediaType.rawValue, codec: subType,
            codecName: format?.extensions["CodecName"], profile: format?.extensions["Profile"], playable: playable,
            enabled: enabled,
            timeRange: ["start": TimeReport(timeRange.start), "duration": TimeReport(timeRange.duration)],
            language: language, extendedLanguageTag: tag, estimatedDataRate: rate)
        report.title = try await t.load(.commonMetadata).first { $0.commonKey == .commonKeyTitle }?.stringValue
        if t.mediaType == .video {
            let (size, transform, fps, reorder) = try await t.load(
                .naturalSize, .preferredTransform, .nominalFrameRate, .requiresFrameReordering)
            report.naturalSize = ["width": Double(size.width), "height": Double(size.height)]
            let shown = size.applying(transform)
            report.presentationSize = ["width": abs(Double(shown.width)), "height": abs(Double(shown.height))]
            report.preferredTransform = [
                transform.a, transform.b, transform.c, transform.d, transform.tx, transform.ty,
            ].map { Double($0) }
            report.nominalFrameRate = fps
            report.requiresFrameReordering = reorder
        }
        if t.mediaType == .audio, let asbd = format?.audioStreamBasicDescription {
            report.sampleRate = asbd.mSampleRate
            report.channels = asbd.mChannelsPerFrame
            report.channelLayout = format?.extensions["ChannelLayout"]
        }
        return report
    }

    /// The human-readable report.
    var text: String {
        var lines: [String] = [url]
        lines.append("  Duration:  \(formatTime(duration))\(providesPreciseDurationAndTiming ? "" : " (estimated)")")
        lines.append("  Playable:  \(playable ? "yes" : "no")")
        lines.append("  Tracks:")
        for t in tracks {
            var parts: [String] = [
                "#\(t.trackID)", kindName(t.mediaType).padding(toLength: 8, withPad: " ", startingAt: 0),
            ]
            parts.append("\(t.codecName ?? t.codec) (\(t.codec))\(t.profile.map { " \($0)" } ?? "")")
            if let s = t.presentationSize, let n = t.naturalSize {
                parts.append("\(Int(n["width"]!))×\(Int(n["height"]!))")
                if s != n { parts.append("shown \(Int(s["width"]!))×\(Int(s["height"]!))") }
            }
            if let fps = t.nominalFrameRate, fps > 0 { parts.append(String(format: "%.3g fps", fps)) }
            if let sr = t.sampleRate { parts.append("\(Int(sr)) Hz") }
            if let layout = t.channelLayout {
                parts.append(layout)
            } else if let ch = t.channels {
                parts.append("\(ch) ch")
            }
            if t.estimatedDataRate > 0 { parts.append("\(Int(t.estimatedDataRate / 1000)) kb/s") }
            if let l = t.language { parts.append("[\(l)]") }
            if let title = t.title { parts.append("“\(title)”") }
            if !t.enabled { parts.append("(disabled)") }
            if !t.playable { parts.append("(no decoder)") }
            lines.append("    " + parts.joined(separator: "  "))
        }
        if !metadata.isEmpty {
            lines.append("  Metadata:")
            for m in metadata {
                lines.append("    \(m.commonKey ?? m.identifier ?? "?"): \(m.value ?? "")")
            }
        }
        if !variants.isEmpty {
            lines.append("  Variants:")
            for v in variants {
                var parts: [String] = []
                if let w = v.width, let h = v.height, w > 0 { parts.append("\(Int(w))×\(Int(h))") }
                if let peak = v.peakBitRate { parts.append("\(Int(peak / 1000)) kb/s") }
                if let average = v.averageBitRate { parts.append("(average \(Int(average / 1000)) kb/s)") }
                if let fps = v.frameRate { parts.append(String(format: "%.3g fps", fps)) }
                lines.append("    " + parts.joined(separator: "  "))
            }
        }
        if !mediaSelectionGroups.isEmpty {
            lines.append("  Media selection:")
            for g in mediaSelectionGroups {
                let name = g.characteristic.replacingOccurrences(of: "public.", with: "")
                let options = g.options.map { "\($0.displayName)\($0.isDefault ? " (default)" : "")" }
                lines.append("    \(name): \(options.joined(separator: ", "))\(g.allowsEmptySelection ? ", off" : "")")
            }
        }
        return lines.joined(separator: "\n")
    }

    func kindName(_ mediaType: String) -> String {
        switch mediaType {
        case AVMediaType.video.rawValue: return "video"
        case AVMediaType.audio.rawValue: return "audio"
        case AVMediaType.subtitle.rawValue, AVMediaType.text.rawValue: return "subtitle"
        default: return mediaType
        }
    }

    func formatTime(_ t: TimeReport) -> String {
        guard let seconds = t.seconds, let v = t.value, let ts = t.timescale else { return t.kind }
        let minutes = Int(seconds) / 60
        return String(format: "%d:%06.3f", minutes, seconds - Double(minutes * 60)) + "  (\(v)/\(ts))"
    }
}

func fourCC(_ v: UInt32) -> String {
    let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> UInt32($0)) }
    if v != 0 && bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7f }) { return String(decoding: bytes, as: UTF8.self) }
    return String(format: "0x%08x", v)
}
