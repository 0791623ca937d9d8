import Foundation
import HLS
import OAVFLocking
import PlaybackEngine

extension MediaSourceFactory {
    /// How the public layer reads an asset's URL: the source the asset's loading opened, when it is still on the
    /// ``WarmSourceShelf`` (an HLS source adopts the player's clock, `SourceOptions.clock`); else an `http(s)` URL of
    /// an HLS playlist (`.m3u8`, `.m3u`) through the HLS module's own playlist and segment layer, files and
    /// everything else through libavformat.
    static let avFoundation = MediaSourceFactory { location, sourceOptions, options, cancellation in
        if let warm = WarmSourceShelf.shared.take(location: location, options: sourceOptions, libavformat: options) {
            (warm as? HLSSource)?.adopt(clock: sourceOptions.clock)
            return warm
        }
        if let url = URL(string: location), WarmSourceShelf.isStreamed(url) {
            return HLSSource(url: url, sourceOptions: sourceOptions, cancellation: cancellation)
        }
        return MediaSourceFactory.ffmpeg.make(location, sourceOptions, options, cancellation)
    }
}

/// Opened sources that an asset's loading leaves for the first item that plays the asset, so that an input is opened
/// once, not once for the asset and again for playback (mpv and Apple's player open a stream once): an HLS
/// presentation's playlists are fetched and its first segments probed once; a local file is opened and probed once
/// (for a file with a large index, most of the time before the first picture), the packets its description read
/// given again to playback (``FFmpegSource/replayKeptPackets()``). A source waits at most ``lifetime`` seconds; then
/// it is closed.
///
/// Thread-safe.
final class WarmSourceShelf: @unchecked Sendable {
    static let shared = WarmSourceShelf()
    /// Seconds an unclaimed source is kept.
    static let lifetime: TimeInterval = 10
    /// Sources kept at most (the oldest is closed first).
    static let capacity = 4

    private struct Entry {
        var location: String
        var options: SourceOptions
        var libavformat: [String: String]
        var source: any MediaSource
        var deadline: Date
        /// A local file's version when it was opened: a file replaced or written since is opened again.
        var file: FileIdentity?
    }

    /// Guards `entries`: asset loading (any thread) shelves sources, item preparation (engine side) takes them. Not an
    /// engine command: the shelf is shared by assets and players, none of which owns it.
    private let lock = ConditionLock()
    /// Guarded by `lock`.
    private var entries: [Entry] = []

    /// Whether the HLS source reads `url`.
    static func isStreamed(_ url: URL) -> Bool {
        let scheme = url.scheme?.lowercased()
        return (scheme == "http" || scheme == "https") && HLSSource.handles(url)
    }

    /// Keeps `source` when it is an HLS source or a local file read by libavformat (others are closed as before);
    /// `MediaProbe`'s `keep`.
    func keep(_ source: any MediaSource) {
        let entry: Entry
        let deadline = Date().addingTimeInterval(Self.lifetime)
        if let stream = source as? HLSSource {
            entry = Entry(
                location: stream.url.absoluteString, options: stream.sourceOptions, libavformat: [:], source: stream,
                deadline: deadline)
        } else if let file = source as? FFmpegSource, file.isLocal, let identity = file.openedFile {
            entry = Entry(
                location: file.location, options: file.sourceOptions, libavformat: file.options, source: file,
                deadline: deadline, file: identity)
        } else {
            return
        }
        let expired: [any MediaSource] = lock.withLock {
            var dropped = removeExpired()
            entries.append(entry)
            while entries.count > Self.capacity { dropped.append(entries.removeFirst().source) }
            return dropped
        }
        for source in expired { source.interrupt() }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.lifetime + 0.5) { [weak self] in
            self?.closeExpired()
        }
    }

    /// The kept source for `location` opened with `options` and libavformat options `libavformat`, if any (it
    /// leaves the shelf); for a local file, only while the file is the one it opened. The options' clock is not
    /// compared: a source kept has scheduled nothing yet, and the caller gives it its own (``HLSSource/adopt(clock:)``).
    func take(location: String, options: SourceOptions, libavformat: [String: String]) -> (any MediaSource)? {
        let wanted = Self.key(options)
        let (found, expired): (Entry?, [any MediaSource]) = lock.withLock {
            let dropped = removeExpired()
            guard
                let index = entries.firstIndex(where: {
                    $0.location == location && Self.key($0.options) == wanted && $0.libavformat == libavformat
                })
            else {
                return (nil, dropped)
            }
            return (entries.remove(at: index), dropped)
        }
        for source in expired { source.interrupt() }
        guard let found, !found.source.isInterrupted else { return nil }
        if let opened = found.file, opened != FileIdentity(path: location) {
            found.source.interrupt()
            return nil
        }
        return found.source
    }

    /// `options` as sources on the shelf are matched by: all but the clock, which the taker replaces.
    private static func key(_ options: SourceOptions) -> SourceOptions {
        var key = options
        key.clock = .host
        return key
    }

    /// Whether a source for `location` waits on the shelf (tests).
    func holds(location: String) -> Bool {
        lock.withLock { entries.contains { $0.location == location } }
    }

    private func closeExpired() {
        let expired = lock.withLock { removeExpired() }
        for source in expired { source.interrupt() }
    }

    /// Removes and returns the entries past their deadline. Call with `lock` held.
    private func removeExpired() -> [any MediaSource] {
        let now = Date()
        let expired = entries.filter { $0.deadline <= now }.map(\.source)
        entries.removeAll { $0.deadline <= now }
        return expired
    }
}
