import CoreMedia
import FFmpegBridge
import Foundation
import OAVFLocking
import PlaybackEngine

/// A ``MediaSource`` for an HTTP Live Streaming presentation (RFC 8216): fetches the playlists itself, plays one
/// variant — with the alternate audio renditions of its audio group beside it — and feeds each media playlist's
/// segments to its own libavformat demuxer through a custom I/O context (``SegmentFeed``), interleaving their
/// packets by decoding time, so the engine sees one input whose seeks land on segment boundaries.
///
/// - Streams: the variant's, then one audio stream per alternate audio rendition (with the rendition's language,
///   name and default flag), so the engine's audio selection switches renditions. Only the rendition describing the
///   group (`DEFAULT`, else the first) is opened with the source; another's input is opened — its playlist and
///   segments fetched — when its stream is first kept (``HLSAudioRenditionInput``), and a rendition whose stream is
///   not played is not read.
/// - VOD (`EXT-X-ENDLIST`): the duration is the playlist's; a seek restarts every feed at the segment holding the
///   target (the ``Demuxer`` backs off if the keyframe found there is late, as it does for MPEG-TS files).
/// - Live and event: each playlist is reloaded when its feed has read its last segment (every target duration, half
///   of it after an unchanged reload, RFC 8216 §6.3.4), playback starts three target durations from the live edge
///   (or at `EXT-X-START`), and ``liveWindow`` is the variant playlist's window.
///
/// Which variant: it starts on the first listed within the caps (the next one when its playlist fails to load);
/// then a ``VariantSwitcher`` chooses the variant of each segment (adaptive bitrate, ``variantControl``). Threads: as
/// ``MediaSource`` says; ``interrupt()``, ``dateMapping``, ``liveWindow`` and ``variantControl`` from any thread.
package final class HLSSource: MediaSource, @unchecked Sendable {
    /// The presentation's URL (a multivariant or a media playlist).
    package let url: URL
    /// How it is opened; its clock is replaced by ``adopt(clock:)`` (before playback reads the source), nothing else
    /// changes. The thread that owns the source.
    package private(set) var sourceOptions: SourceOptions
    /// At most this many alternate audio renditions are opened beside the variant.
    static let maximumRenditions = 8

    let cancellation: Cancellation
    let interruptFlag = InterruptFlag()
    /// Wake, suspension and interruption requests to the source's waits (its client's body reads included).
    let readControl: HLSReadControl
    let client: HLSHTTPClient
    let parser = HLSParser()
    /// Set by ``open()`` and not changed afterwards (members other threads may use after it read it): the variant
    /// first, then the audio rendition that describes its group.
    private(set) var inputs: [HLSInput] = []
    /// The audio renditions' inputs opened after ``open()``, once selected (the reading thread).
    private var openedLater: [HLSInput] = []
    /// Every input opened (the reading thread).
    private var readInputs: [HLSInput] { openedLater.isEmpty ? inputs : inputs + openedLater }
    private var openedInfo: MediaInfo?
    /// The multivariant playlist, when the URL named one.
    private(set) var multivariant: HLSMultivariantPlaylist?
    /// The variant being played (nil when the URL named a media playlist).
    private(set) var variant: HLSVariant?
    /// Whether the live playlists' refreshers were started (reading thread).
    private var isRefreshing = false
    /// The audio streams of the main input when its segments also carry video (muxed): its packets are counted in
    /// the network log by kind. Empty otherwise. Set by `open()`, read by the reading thread.
    private var mainAudioStreams: Set<Int> = []
    /// The alternate audio renditions offered beside it, in stream order (see `HLSSource+Renditions.swift`).
    private(set) var audioRenditionInputs: [HLSAudioRenditionInput] = []
    /// Why a rendition selected while playing could not be opened: thrown by the next read.
    private var renditionFailure: FFmpegError?
    /// The container time of the last packet read (microseconds): where a rendition opened while playing starts.
    private var lastReadMicroseconds: Int64?
    /// The streams kept by the last ``setDiscard(keepingStreams:)``, until the renditions among them are opened.
    private var keptStreams: Set<Int>?
    /// The subtitle renditions offered beside it, as the last streams (see `HLSSource+Subtitles.swift`).
    private(set) var subtitleRenditions: [HLSSubtitleRendition] = []
    /// The variant's closed-caption renditions, as services of its video stream (set by ``open()``).
    private(set) package var closedCaptionServices: [ClosedCaptionDescription] = []
    /// Set by ``open()`` when a closed-caption rendition can be decoded; its log is filled by the reading thread.
    private(set) var captions: HLSCaptionRecording?
    /// Guards what callers on any thread read: the date mapping and the live window. The reading thread publishes, any
    /// thread reads. Not an engine command: callers read a published value without waiting for the engine.
    private let publishLock = ConditionLock()
    private var publishedDateMapping: DateMapping?
    private var publishedLiveWindow: CMTimeRange?
    private var publishedTargetDuration: Double?
    private var publishedDateRanges: [DateRangeDescription] = []
    private var dateRangesObserver: (@Sendable () -> Void)?
    /// The caps, policy, forward buffer and decision log of adaptive bitrate (see ``VariantSwitcher``).
    private let control: VariantControl
    /// Set by ``open()`` for a multivariant playlist; then owned by the reading thread.
    private var switcher: VariantSwitcher?

    /// A source for the presentation at `url`.
    package init(url: URL, sourceOptions: SourceOptions = SourceOptions(), cancellation: Cancellation = Cancellation())
    {
        self.url = url
        self.sourceOptions = sourceOptions
        self.cancellation = cancellation
        let wakers = WaitWakers()
        client = HLSHTTPClient(options: sourceOptions, wakers: wakers)
        readControl = HLSReadControl(wakers: wakers)
        control = VariantControl(
            caps: VariantCaps(
                maximumPeakBitRate: sourceOptions.maximumPeakBitRate,
                maximumResolution: sourceOptions.maximumResolution))
        // A load cancelled (the asset released) ends the waits at once, as ``interrupt()`` does.
        cancellation.whenCancelled { [weak client, weak readControl] in
            client?.invalidate()
            readControl?.wakeWaiters()
        }
    }

    deinit {
        client.invalidate()
    }

    /// Whether `url` names an HLS playlist (by its path extension, as players decide when no MIME type is known).
    package static func handles(_ url: URL) -> Bool {
        let ext = url.pathExtension.lowercased()
        return ext == "m3u8" || ext == "m3u"
    }

    var isInterruptedNow: Bool { interruptFlag.isAborted || cancellation.isCancelled }

    package var isLocal: Bool { url.isFileURL }

    package func open() throws(FFmpegError) {
        guard inputs.isEmpty else { return }
        if isInterruptedNow { throw FFmpegError.exit }
        var playlist: HLSMediaPlaylist
        var renditions: [HLSRendition] = []
        var describing = 0
        var describingPlaylist: HLSMediaPlaylist?
        switch try load(url) {
        case .media(let media):
            playlist = media
        case .multivariant(let presentation):
            multivariant = presentation
            let (chosen, variantPlaylist, failed) = try openStartVariant(of: presentation)
            variant = chosen
            playlist = variantPlaylist
            startFailures = failed
            (renditions, describing) = Self.audioRenditions(of: chosen, in: presentation)
            if !renditions.isEmpty, let uri = renditions[describing].uri {
                // Only the rendition that describes the group is fetched now; the others when they are selected.
                describingPlaylist = try mediaPlaylist(
                    at: uri, of: "the audio rendition \"\(renditions[describing].name)\"")
            }
        }
        let isInterrupted = { [interruptFlag, cancellation] in interruptFlag.isAborted || cancellation.isCancelled }
        let openInput = { [self] (playlist: HLSMediaPlaylist, isMain: Bool) throws(FFmpegError) -> HLSInput in
            let input = HLSInput(
                playlist: playlist, streamOffset: 0, client: client, parser: parser,
                liveStartOffset: sourceOptions.liveStartOffset, clock: sourceOptions.clock, isInterrupted: isInterrupted
            )
            input.readControl = readControl
            // The variant's segments are the log's main ones; the others are audio renditions'. Only the variant's
            // segments are scanned for emsg ID3 tags (a rendition's timeline is shifted by its own edit list).
            if isMain {
                // Before the first segment is fetched (opening reads it): its transfer is the variant's, and gives
                // the first bandwidth sample.
                input.indicatedBitrate = variant.map { Double($0.bandwidth) }
                input.feed.eventScanner = EmsgID3Scanner()
            } else {
                input.feed.content = .audioRendition
            }
            try input.open(interrupt: interruptFlag)
            return input
        }
        let main = try openInput(playlist, true)
        var streams: [StreamInfo] = main.format.info.streams.map { stream in
            var stream = stream
            // What a stream's header says of its length covers the first segment (an fMP4 init section's
            // fragment); the playlist's duration is the presentation's.
            stream.duration = nil
            stream.frameCount = nil
            return stream
        }
        var opened = [main]
        if let describingPlaylist {
            let input = try openInput(describingPlaylist, false)
            guard let local = Self.audioStream(of: input) else {
                throw FFmpegError(
                    code: FFmpegError.invalidData.code,
                    function: "HLS: the audio rendition \(describingPlaylist.url.absoluteString) has no audio stream")
            }
            let first = streams.count
            var template = input.format.info.streams[local]
            template.duration = nil
            template.frameCount = nil
            let extradata = try input.format.codecParameters(stream: local, reportedIndex: first + describing).extradata
            for (position, rendition) in renditions.enumerated() {
                guard let uri = rendition.uri else { continue }
                var stream = template
                stream.index = first + position
                Self.describe(&stream, as: rendition)
                audioRenditionInputs.append(
                    HLSAudioRenditionInput(
                        rendition: rendition, uri: uri, stream: stream, describedExtradata: extradata,
                        input: position == describing ? input : nil, local: local))
            }
            input.streamOffset = first + describing - local
            input.setDiscard(keeping: [local])
            streams += audioRenditionInputs.map(\.stream)
            opened.append(input)
        }
        subtitleRenditions = Self.subtitleRenditions(of: variant, in: multivariant, firstIndex: streams.count)
        streams += subtitleRenditions.map(\.stream)
        inputs = opened
        if let video = main.format.info.streams.first(where: { $0.kind == .video }) {
            closedCaptionServices = Self.closedCaptionServices(
                of: variant, in: multivariant, videoStream: video.index)
            if closedCaptionServices.contains(where: { $0.service != nil }),
                let parameters = try? main.format.codecParameters(stream: video.index, reportedIndex: video.index),
                let extractor = ClosedCaptionExtractor(parameters: parameters)
            {
                captions = HLSCaptionRecording(stream: video.index, timeBase: video.timeBase, extractor: extractor)
            }
        }
        main.indicatedBitrate = variant.map { Double($0.bandwidth) }
        let mainKinds = (0..<main.format.streamCount).map { main.format.kind(ofStream: $0) }
        client.log.mainStreams = NetworkLog.MainStreams(
            video: mainKinds.contains(.video), audio: mainKinds.contains(.audio))
        // Muxed segments: their demuxed packets say how their bytes divide between audio and video.
        mainAudioStreams = mainKinds.contains(.video) ? Set(mainKinds.indices.filter { mainKinds[$0] == .audio }) : []
        var info = main.format.info
        info.streams = streams
        // Item time zero: VOD, the first segment read; live (and EVENT), the start of the variant's window as loaded
        // (Apple's), so the window before the segment playback starts at can be sought to — or the first packet
        // read, when another input's starts before it (never a packet read at the start before zero).
        let firstRead = opened.map(\.firstReadMicroseconds).min()
        info.startTimeMicroseconds =
            main.playlist.isLive ? min(main.playlistStartMicroseconds, firstRead ?? .max) : firstRead
        info.durationMicroseconds = main.playlist.isLive ? nil : Int64((main.playlist.duration * 1e6).rounded())
        info.durationFromBitrate = false
        info.byteSize = nil
        if let variant { info.bitRate = Int64(variant.bandwidth) }
        openedInfo = info
        main.onPlaylistChange = { [unowned self, unowned main] in
            publish(main.playlist, startMicroseconds: main.playlistStartMicroseconds)
        }
        publish(main.playlist, startMicroseconds: main.playlistStartMicroseconds)
        startAdapting(main)
    }

    /// Live: each playlist is reloaded on its own thread once playback reads the source (a source opened only to
    /// describe the asset reloads nothing); the variant's changes are published.
    private func startRefreshing() {
        guard !isRefreshing, let main = inputs.first else { return }
        isRefreshing = true
        main.startRefreshing { [weak self] snapshot in
            self?.publish(snapshot.playlist, startMicroseconds: snapshot.startMicroseconds)
        }
        for rendition in readInputs.dropFirst() { rendition.startRefreshing { _ in } }
    }

    /// Indices (among the non-I-frame variants) of the variants whose playlist failed to load at the start.
    private var startFailures: Set<Int> = []

    /// The variants playback may start with, in the order they are tried: the first listed within the caps
    /// (`preferredPeakBitRate`, `preferredMaximumResolution`; else the one with the lowest bandwidth) — or, given the
    /// `estimate` an earlier item of the player measured of the host, the highest within the caps that
    /// ``DefaultVariantPolicy/upFraction`` of it carries (else the lowest within them) — then —
    /// should its playlist fail to load — the others within the caps from the highest bandwidth below it down, then
    /// those above it, then the rest. Indices into the non-I-frame variants.
    static func startOrder(
        of presentation: HLSMultivariantPlaylist, under caps: VariantCaps, estimate: Double? = nil
    ) -> [Int] {
        let variants = presentation.variants.filter { !$0.isIFrameOnly }
        let admitted = { (i: Int) in
            caps.admits(
                VariantDescription(
                    uri: "", peakBitRate: variants[i].bandwidth, width: variants[i].resolution?.width,
                    height: variants[i].resolution?.height, hasVideo: true, hasAudio: true))
        }
        let rate = { (i: Int) in variants[i].bandwidth }
        // With an estimate from an earlier item: the highest admitted variant it carries, else the lowest admitted.
        let measured = estimate.flatMap { estimate -> Int? in
            let candidates = variants.indices.filter(admitted)
            let carried = candidates.filter { Double(rate($0)) <= estimate * DefaultVariantPolicy.upFraction }
            return carried.max { rate($0) < rate($1) } ?? candidates.min { rate($0) < rate($1) }
        }
        guard
            let first = measured ?? variants.indices.first(where: admitted)
                ?? variants.indices.min(by: { variants[$0].bandwidth < variants[$1].bandwidth })
        else { return [] }
        let others = variants.indices.filter { $0 != first }
        let below = others.filter { admitted($0) && rate($0) <= rate(first) }.sorted { rate($0) > rate($1) }
        let above = others.filter { admitted($0) && rate($0) > rate(first) }.sorted { rate($0) < rate($1) }
        let rest = others.filter { !admitted($0) }.sorted { rate($0) < rate($1) }
        return [first] + below + above + rest
    }

    /// The variant playback starts with (``startOrder(of:under:)``), its media playlist, and the variants tried
    /// before it whose playlist failed (each failure is in the network log); throws the first failure when none
    /// loads.
    private func openStartVariant(
        of presentation: HLSMultivariantPlaylist
    ) throws(FFmpegError) -> (HLSVariant, HLSMediaPlaylist, Set<Int>) {
        let variants = presentation.variants.filter { !$0.isIFrameOnly }
        var firstError: FFmpegError?
        var failed: Set<Int> = []
        let known = sourceOptions.startsOnFirstEligibleVariant ? nil : sourceOptions.initialBitRateEstimate
        for index in Self.startOrder(of: presentation, under: control.caps, estimate: known) {
            do {
                let playlist = try mediaPlaylist(at: variants[index].uri, of: "the variant")
                return (variants[index], playlist, failed)
            } catch {
                if error == FFmpegError.exit || isInterruptedNow { throw FFmpegError.exit }
                firstError = firstError ?? error
                failed.insert(index)
            }
        }
        throw firstError
            ?? FFmpegError(code: FFmpegError.invalidData.code, function: "HLS: \(url.absoluteString) lists no variant")
    }

    /// Lets the variant input switch variants at segment boundaries (a multivariant playlist with more than one
    /// variant), and records the start.
    private func startAdapting(_ main: HLSInput) {
        guard let multivariant, let variant else { return }
        let variants = multivariant.variants.filter { !$0.isIFrameOnly }
        let descriptions = self.variants
        guard variants.count > 1, let start = variants.firstIndex(of: variant) else { return }
        let switcher = VariantSwitcher(
            variants: variants, descriptions: descriptions, start: start, startPlaylist: main.playlist,
            failed: startFailures, firstReadMicroseconds: main.firstReadMicroseconds, control: control,
            meter: BandwidthMeter(log: client.log, prior: sourceOptions.initialBitRateEstimate),
            load: { [unowned self] (url: URL) throws(FFmpegError) -> HLSMediaPlaylist in
                try mediaPlaylist(at: url, of: "the variant")
            },
            startTime: { [unowned main] playlist, index in
                main.playlistStartMicroseconds + Int64((playlist.startOffset(ofSegment: index) * 1e6).rounded())
            })
        self.switcher = switcher
        control.record(
            VariantDecision(
                date: Date(), mediaSequence: main.playlist.mediaSequence + HLSInput.startIndex(of: main.playlist),
                startMicroseconds: main.firstReadMicroseconds,
                from: nil, to: descriptions[start], reason: startFailures.isEmpty ? .start : .fallback,
                estimatedBitRate: sourceOptions.initialBitRateEstimate, forwardBuffer: nil, caps: control.caps))
        main.adapt(with: switcher)
    }

    package var variantControl: VariantControl? { control }

    /// Runs the source's schedules (live reloads, the unchanged-playlist rule, retry back-off) on `clock` from now
    /// on: a source an asset's loading opened (on the host clock) and a player on its own clock then plays
    /// (`WarmSourceShelf`). Call before playback reads it: its reloads start at its first read, and between reads
    /// nothing waits on its clock. The thread that owns the source (see ``MediaSource``), before it hands it on.
    package func adopt(clock: MediaClock) {
        assert(!isRefreshing, "HLSSource.adopt(clock:) after the reloads started")
        sourceOptions.clock = clock
        for input in readInputs { input.clock = clock }
    }

    /// Gives a rendition's stream the rendition's language, name and default flag.
    private static func describe(_ stream: inout StreamInfo, as rendition: HLSRendition) {
        if let language = rendition.language { stream.metadata["language"] = language }
        stream.metadata["title"] = rendition.name
        if rendition.isDefault {
            stream.disposition.insert(.default)
        } else {
            stream.disposition.remove(.default)
        }
    }

    package var networkLog: NetworkLog? { client.log }

    package var dateMapping: DateMapping? { publishLock.withLock { publishedDateMapping } }

    package var liveWindow: CMTimeRange? { publishLock.withLock { publishedLiveWindow } }

    package var dateRanges: [DateRangeDescription] { publishLock.withLock { publishedDateRanges } }

    package func observeDateRanges(_ handler: @escaping @Sendable () -> Void) {
        publishLock.withLock { dateRangesObserver = handler }
    }

    /// Publishes what the variant's playlist says for readers on other threads: every segment's program date time at
    /// the container time its segment starts, (live) the window, and its date ranges. `startMicroseconds`: where its
    /// first segment starts in container time. Any thread (the reading thread at open, then a live playlist's
    /// refresher).
    private func publish(_ playlist: HLSMediaPlaylist, startMicroseconds: Int64) {
        let start = Double(startMicroseconds) / 1e6
        let anchors = playlist.segments.indices.compactMap { index in
            playlist.segments[index].programDateTime.map { (start + playlist.startOffset(ofSegment: index), $0) }
        }
        let mapping = DateMapping(anchors: anchors)
        let window =
            playlist.isLive
            ? CMTimeRange(
                start: CMTime(microseconds: startMicroseconds),
                duration: CMTime(seconds: playlist.duration, preferredTimescale: 1_000_000)) : nil
        let ranges = playlist.dateRanges.map(Self.description)
        let observer: (@Sendable () -> Void)? = publishLock.withLock {
            publishedDateMapping = mapping
            publishedLiveWindow = window
            publishedTargetDuration = playlist.targetDuration
            defer { publishedDateRanges = ranges }
            return publishedDateRanges != ranges ? dateRangesObserver : nil
        }
        observer?()
    }

    /// `range` for the engine: its attributes other than ID, CLASS, START-DATE, END-DATE and END-ON-NEXT by their
    /// playlist names; the end from END-DATE, else START-DATE + DURATION.
    static func description(_ range: HLSDateRange) -> DateRangeDescription {
        var attributes: [(name: String, value: DateRangeDescription.Value)] = []
        if let d = range.duration { attributes.append(("DURATION", .number(d))) }
        if let d = range.plannedDuration { attributes.append(("PLANNED-DURATION", .number(d))) }
        if let d = range.scte35Command { attributes.append(("SCTE35-CMD", .data(d))) }
        if let d = range.scte35Out { attributes.append(("SCTE35-OUT", .data(d))) }
        if let d = range.scte35In { attributes.append(("SCTE35-IN", .data(d))) }
        for (name, value) in range.clientAttributes {
            switch value {
            case .string(let s), .enumerated(let s): attributes.append((name, .string(s)))
            case .number(let n): attributes.append((name, .number(n)))
            case .hexadecimal(let bytes): attributes.append((name, .data(Data(bytes))))
            }
        }
        return DateRangeDescription(
            id: range.id, classAttribute: range.classAttribute, startDate: range.startDate,
            endDate: range.endDate ?? range.duration.map { range.startDate.addingTimeInterval($0) },
            attributes: attributes)
    }

    /// The variant's input, when it holds stream `index` of the merged list, and the stream's index inside it.
    private func input(holding index: Int) -> (HLSInput, Int)? {
        guard let main = inputs.first, index >= 0, index < main.format.streamCount else { return nil }
        return (main, index)
    }

    /// The audio rendition that is stream `index`, if any.
    private func audioRendition(at index: Int) -> HLSAudioRenditionInput? {
        audioRenditionInputs.first { $0.stream.index == index }
    }

    package var info: MediaInfo {
        guard let openedInfo else { preconditionFailure("HLSSource used before open()") }
        return openedInfo
    }

    package var isLive: Bool { inputs.first?.playlist.isLive ?? false }

    package var liveTargetDuration: Double? {
        publishLock.withLock { publishedLiveWindow == nil ? nil : publishedTargetDuration }
    }

    package var isSeekable: Bool { !inputs.isEmpty }

    package var seekableRange: CMTimeRange? { inputs.first?.window }

    package func codecParameters(stream index: Int) throws(FFmpegError) -> CodecParameters {
        if let subtitles = subtitleRendition(at: index) { return try subtitles.codecParameters() }
        if let rendition = audioRendition(at: index) {
            // Its own input's once opened, else the describing rendition's.
            guard let opened = rendition.input ?? audioRenditionInputs.lazy.compactMap(\.input).first,
                let local = Self.audioStream(of: opened)
            else { throw FFmpegError.streamNotFound }
            return try opened.format.codecParameters(stream: local, reportedIndex: index)
        }
        guard let (input, local) = input(holding: index) else { throw FFmpegError.streamNotFound }
        return try input.format.codecParameters(stream: local, reportedIndex: index)
    }

    package func kind(ofStream index: Int) -> StreamKind {
        if subtitleRendition(at: index) != nil { return .subtitle }
        if audioRendition(at: index) != nil { return .audio }
        guard let (input, local) = input(holding: index) else { return .unknown }
        return input.format.kind(ofStream: local)
    }

    package func timeBase(ofStream index: Int) -> Rational? {
        if subtitleRendition(at: index) != nil { return HLSSubtitleRendition.timeBase }
        if let rendition = audioRendition(at: index) { return rendition.stream.timeBase }
        guard let (input, local) = input(holding: index) else { return nil }
        return input.format.timeBase(ofStream: local)
    }

    /// Reads only `streams`: the variant's that are kept, and the audio renditions kept — a rendition's input is
    /// opened (its playlist fetched) the first time its stream is kept, by the seek that follows (at its target) or
    /// else the next read (where reading is).
    package func setDiscard(keepingStreams streams: Set<Int>) {
        guard let main = inputs.first else { return }
        main.setDiscard(keeping: streams.filter { $0 >= 0 && $0 < main.format.streamCount })
        for rendition in audioRenditionInputs {
            rendition.input?.setDiscard(keeping: streams.contains(rendition.stream.index) ? [rendition.local] : [])
        }
        keptStreams = streams
    }

    /// Opens the inputs of the renditions kept but not opened, reading from the segment holding `microseconds`.
    /// Returns them.
    @discardableResult
    private func openKeptRenditions(near microseconds: Int64?) -> [HLSInput] {
        guard let kept = keptStreams else { return [] }
        keptStreams = nil
        let (opened, failure) = openKeptRenditions(kept, near: microseconds, liveRefreshing: isRefreshing)
        openedLater += opened
        if let failure { renditionFailure = failure }
        return opened
    }

    /// The next packet of all the inputs read, by decoding time (a packet without a timestamp goes first).
    package func read(into packet: Packet) throws(FFmpegError) -> ReadResult {
        openKeptRenditions(near: lastReadMicroseconds)
        if let failure = renditionFailure {
            renditionFailure = nil
            throw failure
        }
        startRefreshing()
        var next: HLSInput?
        var nextTime = Int64.max
        for input in readInputs where input.isActive {
            try input.fill()
            guard input.hasLookahead else { continue }
            let time = input.lookaheadMicroseconds ?? Int64.min
            if next == nil || time < nextTime {
                next = input
                nextTime = time
            }
        }
        guard let next else {
            captions?.log.markCaughtUp()
            return .endOfFile
        }
        if nextTime != Int64.min { lastReadMicroseconds = nextTime }
        next.take(into: packet)
        if !mainAudioStreams.isEmpty, next === inputs[0] {
            client.log.countMainPacket(bytes: packet.size, isAudio: mainAudioStreams.contains(packet.streamIndex))
        }
        recordCaptions(of: packet)
        return .packet
    }

    package func attachedPicture(stream index: Int) -> Packet? { nil }

    /// The ID3 tags of the variant's fragmented-MP4 `emsg` boxes found since the last call (see ``EmsgID3Scanner``).
    package func takeTimedMetadata() -> [SourceTimedMetadata] {
        inputs.first?.takeTimedMetadata() ?? []
    }

    package var isAtEndOfInput: Bool { readInputs.allSatisfy { !$0.isActive || $0.isExhausted } }

    package var ioError: FFmpegError? {
        readInputs.lazy.compactMap { $0.feedFailure ?? $0.demuxer.ioError }.first
    }

    package var bytesRead: Int64 { readInputs.reduce(0) { $0 + $1.bytesDelivered } }

    /// Restarts every feed at the segment holding `microseconds` (container time); segments begin with a keyframe
    /// (`EXT-X-INDEPENDENT-SEGMENTS`, or closed GOPs as encoders write them for HLS).
    package func seek(toMicroseconds microseconds: Int64, minimum: Int64, maximum: Int64) throws(FFmpegError) {
        guard !inputs.isEmpty else { throw FFmpegError.exit }
        readControl.clearWake()
        // A rendition opened here starts at the segment holding the target already.
        let opened = openKeptRenditions(near: microseconds)
        for input in readInputs where !opened.contains(where: { $0 === input }) {
            try input.seek(toMicroseconds: microseconds)
        }
        // A switch decided ahead of the seek did not happen: the variant read from here is the feed's.
        if let switcher, let playing = switcher.variant(of: inputs[0].playlist) {
            control.restartTimeline(atMicroseconds: microseconds, variant: switcher.descriptions[playing])
        }
    }

    /// No index: segment boundaries are the only keyframes known ahead of reading.
    package func keyframeTimestamps(stream index: Int, around timestamp: Int64) -> (atOrBefore: Int64?, after: Int64?) {
        (nil, nil)
    }

    /// Interrupts every read, reload and transfer of the source for good; each wait sees it at once.
    package func interrupt() {
        interruptFlag.abort()
        cancellation.cancel()
        client.invalidate()
        readControl.wakeWaiters()
    }

    package var isInterrupted: Bool { isInterruptedNow }

    package func wakeBlockedRead() { readControl.requestWake() }

    /// Counted where the reading threads wait (bodies, playlist changes, retry back-offs: ``WaitWakers``). A
    /// subtitle rendition's reader shares the count, so while it waits the main reader may still be busy: the
    /// manual clock's stall can then still come early for an item with subtitle renditions.
    package var isWaitingForInput: Bool { client.wakers.isReaderBlocked }

    package func setLiveReloadsSuspended(_ suspended: Bool) { readControl.reloadsSuspended = suspended }

    package func makeIndependentSource() -> any MediaSource {
        HLSSource(url: url, sourceOptions: sourceOptions)
    }
}
