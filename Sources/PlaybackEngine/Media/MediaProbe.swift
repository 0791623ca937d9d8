import FFmpegBridge
import Foundation

/// Opens inputs with libavformat to describe them, without playing them: what an asset's loading needs.
///
/// Stateless; every function may be called from any thread, and ``describe(url:options:cancellation:)`` blocks on
/// I/O (call it off the caller's thread).
package enum MediaProbe {
    /// Opens `url` and describes its container and streams (`avformat_open_input` and `avformat_find_stream_info`;
    /// the input is closed again before returning, unless `keep` takes it).
    ///
    /// - Parameters:
    ///   - options: how to open a network input (ignored for file URLs).
    ///   - cancellation: cancels the probe from another thread.
    ///   - factory: makes the source (the one playback will use).
    ///   - keep: given the opened source once it is described, to keep it for playback instead of closing it (the
    ///     caller then owns it; it has been read on this thread only, and reads as if it had not been read).
    /// - Throws: a ``MediaFailure``: why the input could not be opened or probed (kind ``MediaFailureKind/cancelled``
    ///   when cancelled or timed out).
    package static func describe(
        url: URL, options: SourceOptions, cancellation: Cancellation, factory: MediaSourceFactory = .ffmpeg,
        keep: ((any MediaSource) -> Void)? = nil
    ) throws -> MediaDescription {
        // The same source playback reads, so an asset is opened exactly as its items will be.
        let source = factory.make(url.mediaLocation, options, [:], cancellation)
        try source.open()
        var description = MediaDescription(source.info)
        // (A custom input's bytes come from its provider only: its location is not opened.)
        if description.formatName.split(separator: ",").contains("mov"), !source.isLive,
            (source as? FFmpegSource)?.customInput == nil,
            let header = MovieHeader.read(
                url: url.mediaLocation,
                options: options.libavformatOptions(isLocal: url.isFileURL, location: url.mediaLocation))
        {
            description.moviePreferences = (header.rate, header.volume, header.matrix)
        }
        description.isLive = source.isLive
        if options.prefersPreciseDuration {
            scanPreciseDurations(of: &description, url: url, options: options, cancellation: cancellation)
        }
        description.variants = source.variants
        description.closedCaptions = source.closedCaptionServices
        for stream in description.streams where stream.dispositions.contains(.attachedPicture) {
            if let picture = source.attachedPicture(stream: stream.index) {
                description.artwork.append((picture.withData { Data($0) }, stream.codecName))
            }
        }
        if source.isLocal {
            // A libavformat source gives the packets the probe reads again to whoever reads it next.
            let replaying = source as? FFmpegSource
            replaying?.keepPacketsRead()
            for (index, found) in captionedVideoStreams(source, streams: description.streams) {
                description.streams[index].hasClosedCaptions = found.cea608
                description.streams[index].cea708Services = found.cea708.sorted()
            }
            replaying?.replayKeptPackets()
            // (Another source that the probe read from cannot be read from the start again.)
            if replaying == nil { return description }
        }
        keep?(source)
        return description
    }

    /// Tuning: packets read to look for closed captions (broadcast streams carry caption data with every picture;
    /// 120 covers the first seconds of interleaved audio and video).
    static let captionProbePackets = 120

    /// The H.264/HEVC video streams of the opened `source` whose first packets carry caption data: CEA-608 (a valid
    /// 608 byte pair) and the CEA-708 services (DTVCC packets: the services whose blocks they carry, and service 1).
    /// Reads a few packets from the start; the source is not used for anything else afterwards.
    private static func captionedVideoStreams(
        _ source: any MediaSource, streams: [StreamDescription]
    ) -> [Int: (cea608: Bool, cea708: Set<Int>)] {
        var extractors: [Int: ClosedCaptionExtractor] = [:]
        for s in streams where s.kind == .video && (s.codecName == "h264" || s.codecName == "hevc") {
            if let parameters = try? source.codecParameters(stream: s.index),
                let extractor = ClosedCaptionExtractor(parameters: parameters)
            {
                extractors[s.index] = extractor
            }
        }
        guard !extractors.isEmpty else { return [:] }
        var found608 = Set<Int>()
        var dtvcc: [Int: CEA708Decoder] = [:]
        let packet = Packet()
        for _ in 0..<captionProbePackets {
            packet.unref()
            guard case .packet = (try? source.read(into: packet)) ?? .endOfFile else { break }
            guard let extractor = extractors[packet.streamIndex] else { continue }
            let data = packet.withData { extractor.captionData(in: $0) }
            let triplets = stride(from: 0, to: data.count - 2, by: 3)
            // cc_valid with cc_type 0 or 1 (608 field 1 or 2).
            if triplets.contains(where: { data[$0] & 0x06 == 0x04 }) { found608.insert(packet.streamIndex) }
            // cc_valid with cc_type 2 or 3 (DTVCC packet data or start).
            if triplets.contains(where: { data[$0] & 0x06 == 0x06 }) {
                var decoder = dtvcc[packet.streamIndex] ?? CEA708Decoder(service: 1)
                _ = decoder.decode(data, at: .zero)
                dtvcc[packet.streamIndex] = decoder
            }
        }
        var found: [Int: (cea608: Bool, cea708: Set<Int>)] = [:]
        for index in found608.union(dtvcc.keys) {
            let services = dtvcc[index].map { $0.servicesPresent.union([1]) } ?? []
            found[index] = (found608.contains(index), services)
        }
        return found
    }

    /// The short name of the container format the first bytes of the file at `path` look like, or nil when no
    /// demuxer recognises them with reasonable confidence: tells "not a media file" from "a damaged media file".
    package static func recognizedFormat(path: String) -> String? {
        FormatProbe.recognizedFormat(path: path)
    }

    /// The failure FFmpeg reports for a codec this build cannot decode, for errors the public layer makes itself
    /// (an asset whose every track lacks a decoder).
    package static var decoderNotFound: any MediaFailure { FFmpegError.decoderNotFound }
}
