import CoreMedia
import Foundation
import PlaybackEngine

/// Everything an asset knows once loaded: an immutable snapshot built from one probe of the
/// input, shared by `AVAsset`, its tracks and metadata items. Built off the caller's thread.
struct AssetDescription: Sendable {
    struct Track: Sendable {
        var streamIndex: Int
        var trackID: CMPersistentTrackID
        var mediaType: AVMediaType
        var codecName: String
        var codecLongName: String
        var profileName: String?
        var formatDescription: CMFormatDescription
        var isPlayable: Bool
        var isEnabled: Bool
        var timeRange: CMTimeRange
        var naturalTimeScale: CMTimeScale
        var naturalSize: CGSize
        var preferredTransform: CGAffineTransform
        var nominalFrameRate: Float
        var minFrameDuration: CMTime
        var estimatedDataRate: Float
        var requiresFrameReordering: Bool
        var languageCode: String?
        var extendedLanguageTag: String?
        var title: String?
        var mediaCharacteristics: [AVMediaCharacteristic]
        var sampleRate: Int
        var channelCount: Int
        var channelLayout: String?
        var metadata: [String: String]
        var isDefault: Bool
        /// A closed-caption track: captions carried in the SEI of video stream ``streamIndex``.
        var isClosedCaptions = false
        /// A closed-caption track's service: a CEA-608 channel (CC1…CC4) or a CEA-708 service (SERVICE1…63); nil
        /// for an announced service the engine does not know.
        var closedCaptionService: ClosedCaptionService? = .cea608(channel: 1)
        /// Whether automatic media selection may choose the track's option (HLS `AUTOSELECT`; files: always).
        var isAutoselectable = true
    }

    var url: URL
    /// The container time that the asset calls zero: the first timestamp when it is positive (MPEG-TS
    /// and other broadcast streams start at arbitrary clock values), else zero; a live stream's, its source's start
    /// however it falls (HLS: the start of the playlist's window, which may lie before the timestamps restarted
    /// at a discontinuity). Track time ranges and the duration are relative to it; the engine subtracts it from
    /// every timestamp it presents.
    var timeOrigin: CMTime
    var formatName: String
    var formatLongName: String
    var duration: CMTime
    var providesPreciseDurationAndTiming: Bool
    var tracks: [Track]
    /// A streamed presentation's variants (HLS), in playlist order; empty for files.
    var variants: [VariantDescription] = []
    /// Cover art (image bytes and codec), in stream order.
    var artwork: [(data: Data, codecName: String)] = []
    /// The container's chapters, in asset time (relative to ``timeOrigin``), in order.
    var chapters: [ChapterDescription] = []
    var containerMetadata: [String: String]
    var byteSize: Int64?
    var bitRate: Int64?
    /// Why the asset cannot be played (no decodable audio or video), if so.
    var playabilityError: AVError?
    /// A QuickTime-family file's movie header (preferred rate, volume and matrix), if it has one.
    var movieHeader: (rate: Double, volume: Double, matrix: [Double])?

    var isPlayable: Bool { playabilityError == nil }

    /// Probes `url` through the engine (``MediaProbe``), with the network options `options` (the asset's
    /// options dictionary) and cancelled by `cancellation`. Blocking: call it off the caller's thread.
    static func load(url: URL, options: [String: Any], cancellation: Cancellation) throws(AVError) -> AssetDescription {
        if let problem = AVError.localFileProblem(url) { throw problem }
        let media: MediaDescription
        var opened: (any MediaSource)?
        do {
            media = try MediaProbe.describe(
                url: url, options: SourceOptions(assetOptions: options), cancellation: cancellation,
                factory: .avFoundation, keep: { opened = $0 })
        } catch let failure as any MediaFailure {
            // The asset's resource loader says why its delegate's bytes could not be read.
            let resourceLoader = (options[AVURLAsset.resourceLoaderOptionKey] as? CustomInputReference)?.provider
            if let recorded = (resourceLoader as? AVAssetResourceLoader)?.failure(causing: failure) { throw recorded }
            throw AVError.openFailure(url, failure)
        } catch {
            throw AVError.media(.unknown, "“\(AVError.displayName(url))” can’t be opened: \(error).", url: url)
        }
        let description = AssetDescription(url: url, media: media)
        // Left for the asset's first item only when it can play (else closed now, with whatever index it holds).
        if description.isPlayable, let opened { WarmSourceShelf.shared.keep(opened) }
        return description
    }

    init(url: URL, media: MediaDescription) {
        self.url = url
        formatName = media.formatName
        formatLongName = media.formatLongName
        containerMetadata = media.metadata
        movieHeader = media.moviePreferences
        byteSize = media.byteSize
        bitRate = media.bitRate
        let containerDuration = media.duration
        let start = media.startTimeMicroseconds ?? 0
        let originMicroseconds = media.isLive ? start : max(0, start)
        timeOrigin = CMTime(value: originMicroseconds, timescale: 1_000_000)
        variants = media.variants
        artwork = media.artwork
        let origin = timeOrigin
        chapters = media.chapters.map { c in
            ChapterDescription(
                start: max(.zero, c.start - origin), end: max(.zero, c.end - origin), metadata: c.metadata)
        }

        var tracks: [Track] = []
        var usedIDs = Set<CMPersistentTrackID>()
        let kindsWithDefault = Set(media.streams.filter { $0.dispositions.contains(.default) }.map(\.kind))
        for stream in media.streams {
            guard let mediaType = Self.mediaType(stream) else { continue }
            var trackID = stream.containerID > 0 ? stream.containerID : CMPersistentTrackID(stream.index + 1)
            while usedIDs.contains(trackID) || trackID <= 0 { trackID += 1 }
            usedIDs.insert(trackID)
            tracks.append(
                Self.track(
                    stream, trackID: trackID, mediaType: mediaType, containerDuration: containerDuration,
                    originMicroseconds: originMicroseconds, media: media,
                    kindHasDefault: kindsWithDefault.contains(stream.kind)))
        }
        // Captions in a video stream's SEI are closed-caption tracks of their own (as 'c608' and 'c708' tracks are on
        // Apple): CEA-608 CC1, then one per CEA-708 service.
        for stream in media.streams where stream.hasClosedCaptions || !stream.cea708Services.isEmpty {
            guard let video = tracks.first(where: { $0.streamIndex == stream.index && $0.mediaType == .video }) else {
                continue
            }
            let services =
                (stream.hasClosedCaptions ? [ClosedCaptionService.cea608(channel: 1)] : [])
                + stream.cea708Services.map { .cea708(service: $0) }
            for service in services {
                var trackID = (usedIDs.max() ?? 0) + 1
                while usedIDs.contains(trackID) { trackID += 1 }
                usedIDs.insert(trackID)
                tracks.append(Self.closedCaptionTrack(of: video, trackID: trackID, service: service))
            }
        }
        // A streamed presentation's closed-caption renditions (HLS CLOSED-CAPTIONS), each a track of its own.
        for service in media.closedCaptions {
            guard let video = tracks.first(where: { $0.streamIndex == service.streamIndex && $0.mediaType == .video })
            else { continue }
            var trackID = (usedIDs.max() ?? 0) + 1
            while usedIDs.contains(trackID) { trackID += 1 }
            usedIDs.insert(trackID)
            tracks.append(Self.closedCaptionTrack(of: video, trackID: trackID, service: service))
        }
        self.tracks = tracks

        // The asset lasts until its longest track ends, in that track's own timescale.
        var duration = CMTime.invalid
        for t in tracks where t.timeRange.isValid && t.timeRange.end.isNumeric {
            if !duration.isValid || t.timeRange.end > duration { duration = t.timeRange.end }
        }
        if !duration.isValid { duration = containerDuration ?? .indefinite }
        // A live stream has no duration (Apple: `.indefinite` until the playlist ends).
        self.duration = media.isLive ? .indefinite : duration
        // libavformat estimates durations from the bit rate for some inputs (MP3 without an index,
        // raw streams): that is Apple's "not precise".
        providesPreciseDurationAndTiming = !media.isDurationEstimated
        playabilityError = Self.playability(tracks: tracks, formatLongName: media.formatLongName, url: url)
    }

    private static func mediaType(_ s: StreamDescription) -> AVMediaType? {
        switch s.kind {
        case .video: return s.dispositions.contains(.attachedPicture) ? nil : .video
        case .audio: return .audio
        case .subtitle: return .subtitle
        case .data: return .metadata
        default: return nil
        }
    }

    private static func track(
        _ s: StreamDescription, trackID: CMPersistentTrackID, mediaType: AVMediaType, containerDuration: CMTime?,
        originMicroseconds: Int64, media: MediaDescription, kindHasDefault: Bool
    ) -> Track {
        let tb = s.timeBase
        // The origin in the stream's time base (exact for MPEG-TS, whose streams share 1/90000).
        let origin = s.timeBaseValue(microseconds: originMicroseconds)
        let start = s.startTime.map { s.time(inTimeBase: max(0, $0 - origin)) } ?? .zero
        var duration = CMTime.invalid
        if let d = s.duration {
            duration = s.time(inTimeBase: d)
        } else if let total = containerDuration {
            // The container knows only its own duration (Matroska): express it in the track's timescale.
            let end = total
            duration = CMTimeConvertScale(end - start, timescale: tb.num == 1 ? tb.den : 1_000_000, method: .default)
            if duration < .zero { duration = .zero }
        }
        let timeRange = duration.isValid ? CMTimeRange(start: start, duration: duration) : .invalid

        var naturalSize = CGSize.zero
        var transform = CGAffineTransform.identity
        if s.kind == .video {
            var width = Double(s.width)
            if let sar = s.sampleAspectRatio, sar.num != sar.den { width = width * sar.doubleValue }
            naturalSize = CGSize(width: width.rounded(), height: Double(s.height))
            transform = Self.transform(rotationDegrees: s.rotationDegrees, mirrored: s.isMirrored, size: naturalSize)
        }
        let frameRate = s.averageFrameRate ?? s.realFrameRate
        var rate: Float = 0
        if s.kind == .video, let frameRate { rate = Float(frameRate.doubleValue) }
        var minFrameDuration = CMTime.invalid
        if s.kind == .video, let r = s.realFrameRate ?? frameRate, r.num > 0 {
            minFrameDuration = CMTime(value: CMTimeValue(r.den), timescale: r.num)
        }
        var dataRate: Float = 0
        if let b = s.bitRate {
            dataRate = Float(b)
        } else if media.streams.count == 1, let b = media.bitRate {
            dataRate = Float(b)
        }
        let language = LanguageCode.iso639_2T(s.language)
        var characteristics: [AVMediaCharacteristic] = []
        switch s.kind {
        case .video: characteristics = [.visual, .frameBased]
        case .audio: characteristics = [.audible]
        case .subtitle:
            characteristics = [.legible]
            if s.dispositions.contains(.forced) { characteristics.append(.containsOnlyForcedSubtitles) }
            if s.dispositions.contains(.hearingImpaired) {
                characteristics += [.transcribesSpokenDialogForAccessibility, .describesMusicAndSoundForAccessibility]
            }
        default: break
        }
        if s.dispositions.contains(.descriptions) { characteristics.append(.describesVideoForAccessibility) }
        let playableKind = s.kind == .video || s.kind == .audio || s.kind == .subtitle
        return Track(
            streamIndex: s.index, trackID: trackID, mediaType: mediaType, codecName: s.codecName,
            codecLongName: s.codecLongName, profileName: s.profileName,
            formatDescription: CMFormatDescription(stream: s, mediaType: mediaType),
            isPlayable: playableKind && s.hasDecoder,
            isEnabled: kindHasDefault ? s.dispositions.contains(.default) : true,
            timeRange: timeRange, naturalTimeScale: tb.num == 1 ? tb.den : max(1, tb.den / max(1, tb.num)),
            naturalSize: naturalSize, preferredTransform: transform, nominalFrameRate: rate,
            minFrameDuration: minFrameDuration, estimatedDataRate: dataRate,
            requiresFrameReordering: s.hasReordering, languageCode: language,
            extendedLanguageTag: LanguageCode.bcp47(fromISO639: language), title: s.title,
            mediaCharacteristics: characteristics, sampleRate: s.sampleRate, channelCount: s.channelCount,
            channelLayout: s.channelLayoutName, metadata: s.metadata, isDefault: s.dispositions.contains(.default))
    }

    /// The closed-caption track of `service` of `video`'s SEI captions: CEA-608 ('c608') or CEA-708 ('c708'),
    /// legible, timed as the video, titled as HLS names the service (`CC1`, `SERVICE1`).
    private static func closedCaptionTrack(
        of video: Track, trackID: CMPersistentTrackID, service: ClosedCaptionService?
    ) -> Track {
        var t = video
        t.trackID = trackID
        t.mediaType = .closedCaption
        let subtype: String
        switch service {
        case .cea708(let number):
            t.codecName = "eia_708"
            t.codecLongName = "CEA-708 closed captions"
            t.title = "SERVICE\(number)"
            subtype = "c708"
        case .cea608(let channel):
            t.codecName = "eia_608"
            t.codecLongName = "EIA-608 closed captions"
            t.title = "CC\(channel)"
            subtype = "c608"
        case nil:
            t.codecName = "eia_608"
            t.codecLongName = "EIA-608 closed captions"
            t.title = nil
            subtype = "c608"
        }
        t.profileName = nil
        t.formatDescription = CMFormatDescription(
            mediaType: CMFormatDescription.MediaType(rawValue: kCMMediaType_ClosedCaption),
            mediaSubType: CMFormatDescription.MediaSubType(rawValue: FourCC.value(subtype)),
            dimensions: CMVideoDimensions(width: 0, height: 0), audioStreamBasicDescription: nil, extensions: [:])
        t.naturalSize = .zero
        t.preferredTransform = .identity
        t.nominalFrameRate = 0
        t.minFrameDuration = .invalid
        t.estimatedDataRate = 0
        t.requiresFrameReordering = false
        t.mediaCharacteristics = [.legible, .transcribesSpokenDialogForAccessibility]
        // The language is unknown (a 708 caption service descriptor, in the container, is not read).
        t.languageCode = nil
        t.extendedLanguageTag = nil
        t.metadata = [:]
        t.isDefault = false
        t.isEnabled = true
        t.isClosedCaptions = true
        t.closedCaptionService = service
        t.isPlayable = service != nil
        return t
    }

    /// The closed-caption track of an announced caption service of `video` (an HLS `CLOSED-CAPTIONS` rendition):
    /// its name, language and DEFAULT / AUTOSELECT flags; legible, with the accessibility characteristics its
    /// `CHARACTERISTICS` lists. An `INSTREAM-ID` that names no service (not `CC1`…`CC4` or `SERVICE1`…`SERVICE63`)
    /// is listed but not playable.
    private static func closedCaptionTrack(
        of video: Track, trackID: CMPersistentTrackID, service: ClosedCaptionDescription
    ) -> Track {
        var t = closedCaptionTrack(of: video, trackID: trackID, service: service.service)
        t.title = service.name
        t.languageCode = LanguageCode.iso639_2T(service.language)
        t.extendedLanguageTag = LanguageCode.bcp47(fromISO639: t.languageCode)
        t.mediaCharacteristics = [.legible]
        for characteristic in [
            AVMediaCharacteristic.transcribesSpokenDialogForAccessibility, .describesMusicAndSoundForAccessibility,
        ] where service.characteristics.contains(characteristic.rawValue) {
            t.mediaCharacteristics.append(characteristic)
        }
        t.isDefault = service.isDefault
        t.isAutoselectable = service.autoselect
        return t
    }

    /// Apple's `preferredTransform` for a display rotation: rotate clockwise by the stored angle in
    /// a y-down space, then translate so the picture lands in the positive quadrant (an iPhone
    /// portrait video, rotated 90°, has `(0, 1, -1, 0, height, 0)`).
    static func transform(rotationDegrees: Double, mirrored: Bool, size: CGSize) -> CGAffineTransform {
        // FFmpeg's angle is counter-clockwise; Apple's transform turns the picture clockwise.
        var clockwise = (-rotationDegrees).truncatingRemainder(dividingBy: 360)
        if clockwise < 0 { clockwise += 360 }
        let quarter = Int((clockwise / 90).rounded()) % 4
        var t: CGAffineTransform
        switch quarter {
        case 1: t = CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: size.height, ty: 0)
        case 2: t = CGAffineTransform(a: -1, b: 0, c: 0, d: -1, tx: size.width, ty: size.height)
        case 3: t = CGAffineTransform(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: size.width)
        default: t = .identity
        }
        if mirrored {
            // Mirror first (x → width - x), then rotate.
            t = CGAffineTransform(a: -1, b: 0, c: 0, d: 1, tx: size.width, ty: 0).concatenating(t)
        }
        return t
    }

    private static func playability(tracks: [Track], formatLongName: String, url: URL) -> AVError? {
        let media = tracks.filter { $0.mediaType == .video || $0.mediaType == .audio }
        if media.isEmpty {
            return .media(
                .fileFormatNotRecognized,
                "“\(AVError.displayName(url))” contains no audio or video.",
                reason: "The \(formatLongName) input has no audio or video track.", url: url)
        }
        if media.contains(where: \.isPlayable) { return nil }
        let names = media.map { "\($0.mediaType == .video ? "video" : "audio") codec “\(codecLabel($0))”" }
        return .media(
            .decoderNotFound,
            "“\(AVError.displayName(url))” can’t be played: no decoder for the \(names.joined(separator: " or ")).",
            reason: "This FFmpeg build has no decoder for the media in the file.", url: url,
            ffmpeg: MediaProbe.decoderNotFound)
    }

    static func codecLabel(_ t: Track) -> String {
        if t.codecName != "none" { return t.codecName }
        let tag = t.formatDescription.mediaSubType.rawValue
        return tag == 0 ? "unknown" : FourCC.string(tag)
    }
}
