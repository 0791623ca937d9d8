import FFmpegBridge
import Foundation
import PlaybackEngine

/// Where the next segment of the variant input comes from after a switch: the new variant's media playlist, the
/// index in it of the segment that continues the presentation, and its `BANDWIDTH`.
struct VariantSwitch {
    var playlist: HLSMediaPlaylist
    var index: Int
    var indicatedBitrate: Double
}

/// Adaptive bitrate for an HLS source: before each segment of the variant input is fetched, asks the policy (the
/// app's, else ``DefaultVariantPolicy``) which variant it comes from, on the bandwidth estimate (``BandwidthMeter``),
/// the forward buffer and the caps (``VariantControl``, read at every segment so a change applies to the next one);
/// when that is another variant, loads its media playlist (once for VOD), finds the segment that continues the
/// presentation, and records the decision. A variant whose playlist cannot be loaded is left out from then on (its
/// failed request is in the network log, hence the error log).
///
/// Only variants whose streams the engine can keep reading switch: the same video codec family and the same audio
/// group presence as the start variant (MPEG-TS continues on the same demuxer; fragmented MP4 needs a new one).
///
/// Owned by the source's reading thread.
final class VariantSwitcher {
    /// The variants (I-frame-only ones left out), in playlist order, and their descriptions for the policy.
    let variants: [HLSVariant]
    let descriptions: [VariantDescription]
    /// Which variant each media playlist loaded belongs to, by the playlist's URL (after redirects).
    private var variantOf: [URL: Int] = [:]
    private let control: VariantControl
    private let meter: BandwidthMeter
    private let load: (URL) throws(FFmpegError) -> HLSMediaPlaylist
    /// The container time (microseconds) where segment `index` of the playlist playing starts.
    private let startTime: (_ playlist: HLSMediaPlaylist, _ index: Int) -> Int64
    /// Where reading started (container microseconds): the playhead until playback publishes one.
    private let firstReadMicroseconds: Int64
    /// VOD media playlists already loaded, by URL.
    private var loaded: [URL: HLSMediaPlaylist] = [:]
    /// Variants whose playlist failed to load.
    private var failed: Set<Int> = []
    /// Variants the input can switch to.
    private let compatible: Set<Int>
    private let defaultPolicy = DefaultVariantPolicy()

    init(
        variants: [HLSVariant], descriptions: [VariantDescription], start: Int, startPlaylist: HLSMediaPlaylist,
        failed: Set<Int>, firstReadMicroseconds: Int64, control: VariantControl, meter: BandwidthMeter,
        load: @escaping (URL) throws(FFmpegError) -> HLSMediaPlaylist,
        startTime: @escaping (_ playlist: HLSMediaPlaylist, _ index: Int) -> Int64
    ) {
        self.startTime = startTime
        self.firstReadMicroseconds = firstReadMicroseconds
        self.variants = variants
        self.descriptions = descriptions
        variantOf[startPlaylist.url] = start
        self.control = control
        self.meter = meter
        self.load = load
        self.failed = failed
        let family = { (variant: HLSVariant) in
            variant.codecs.map { String($0.lowercased().prefix(4)) }.filter { !$0.hasPrefix("mp4a") }.sorted()
        }
        let start = variants[start]
        compatible = Set(
            variants.indices.filter {
                family(variants[$0]) == family(start) && (variants[$0].audioGroup != nil) == (start.audioGroup != nil)
            })
        if !startPlaylist.isLive { loaded[startPlaylist.url] = startPlaylist }
    }

    /// The variants that may be chosen under `caps`: compatible, not failed, within the caps; when none is within
    /// them, the lowest of the others.
    func eligible(under caps: VariantCaps) -> [Int] {
        let candidates = variants.indices.filter { compatible.contains($0) && !failed.contains($0) }
        let within = candidates.filter { caps.admits(descriptions[$0]) }
        if !within.isEmpty { return within }
        return candidates.min { variants[$0].bandwidth < variants[$1].bandwidth }.map { [$0] } ?? []
    }

    /// Segment `index` of `playlist` (the variant playing) is next: the switch to another variant, when the policy
    /// chooses one whose playlist loads and holds the continuation; nil to stay.
    func nextSegment(of playlist: HLSMediaPlaylist, at index: Int) -> VariantSwitch? {
        guard index < playlist.segments.count, let current = variantOf[playlist.url] else { return nil }
        let estimate = meter.estimate()
        if let estimate { control.estimatedBitRate = estimate }
        let caps = control.caps
        // What is read ahead of the playhead: at least up to the start of the segment before (the one being read
        // when the next is fetched ahead).
        // Before playback publishes its playhead, it stands where reading started.
        let playhead = control.playheadMicroseconds ?? firstReadMicroseconds
        let buffer = max(0, Double(startTime(playlist, max(0, index - 1)) - playhead) / 1e6)
        // A failed variant leaves the eligible set: choose again without it (bounded by the variant count).
        for _ in variants.indices {
            let situation = VariantSituation(
                variants: descriptions, current: current, eligible: eligible(under: caps), estimatedBitRate: estimate,
                forwardBuffer: buffer, mediaSequence: playlist.mediaSequence + index,
                segmentDuration: playlist.segments[index].duration, caps: caps,
                remainingDuration: playlist.isLive ? nil : playlist.duration - playlist.startOffset(ofSegment: index),
                throughputSamples: meter.estimator.recentSamples)
            var choice = (control.policy ?? defaultPolicy).chooseVariant(in: situation)
            if !situation.eligible.contains(choice.index) && !situation.eligible.contains(current) {
                // The variant playing is out (a cap, a failure) and the app's policy kept it: the caps win.
                choice = defaultPolicy.chooseVariant(in: situation)
            }
            guard choice.index != current, situation.eligible.contains(choice.index) else { return nil }
            let target: HLSMediaPlaylist
            do {
                target = try mediaPlaylist(of: choice.index)
            } catch {
                failed.insert(choice.index)
                continue
            }
            guard let mapped = Self.map(index, of: playlist, to: target) else { return nil }
            control.record(
                VariantDecision(
                    date: Date(), mediaSequence: target.mediaSequence + mapped,
                    startMicroseconds: startTime(playlist, index), from: descriptions[current],
                    to: descriptions[choice.index], reason: choice.reason, estimatedBitRate: estimate,
                    forwardBuffer: buffer, caps: caps))
            return VariantSwitch(
                playlist: target, index: mapped, indicatedBitrate: Double(variants[choice.index].bandwidth))
        }
        return nil
    }

    /// Segment `index` of `playlist` was fetched ahead and is next: the switch away from `playlist`'s variant when the
    /// caps no longer admit it (or it failed), so that a cap set while playing applies to the next segment; nil to
    /// keep the segment.
    func recheck(_ playlist: HLSMediaPlaylist, at index: Int) -> VariantSwitch? {
        guard let playing = variantOf[playlist.url], !eligible(under: control.caps).contains(playing) else {
            return nil
        }
        return nextSegment(of: playlist, at: index)
    }

    /// The variant playing when segments of `playlist` are read (nil for a playlist of no variant).
    func variant(of playlist: HLSMediaPlaylist) -> Int? { variantOf[playlist.url] }

    /// The media playlist of variant `index` (a VOD one is loaded once).
    private func mediaPlaylist(of index: Int) throws(FFmpegError) -> HLSMediaPlaylist {
        let url = variants[index].uri
        if let known = loaded[url] { return known }
        let playlist = try load(url)
        if !playlist.isLive { loaded[url] = playlist }
        variantOf[playlist.url] = index
        return playlist
    }

    /// The index in `target` of the segment that continues the presentation where segment `index` of `playlist`
    /// starts (RFC 8216 §6.3.2: by position on the playlist timeline, not by media sequence number; for a live
    /// playlist by program date when both carry one, else by media sequence number); nil when `target` does not hold
    /// it.
    static func map(_ index: Int, of playlist: HLSMediaPlaylist, to target: HLSMediaPlaylist) -> Int? {
        guard !target.segments.isEmpty else { return nil }
        if !playlist.isLive && !target.isLive {
            // Aligned segments (INDEPENDENT-SEGMENTS): the one holding the start, a millisecond in.
            let start = playlist.startOffset(ofSegment: index) + 0.001
            return start < target.duration ? target.segmentIndex(containing: start) : nil
        }
        if let date = playlist.segments[index].programDateTime,
            let first = target.segments.indices.first(where: { target.segments[$0].programDateTime != nil }),
            let firstDate = target.segments[first].programDateTime
        {
            let offset = date.timeIntervalSince(firstDate) + target.startOffset(ofSegment: first)
            guard offset >= 0, offset < target.duration else { return nil }
            return target.segmentIndex(containing: offset + 0.001)
        }
        let mapped = playlist.mediaSequence + index - target.mediaSequence
        return mapped >= 0 && mapped < target.segments.count ? mapped : nil
    }
}
