import Foundation

/// A whole multivariant set made live: the multivariant playlist served as it is, and every media playlist it names
/// (variants and renditions) an `HLSLiveWindow` over the VOD one, all sharing one "now".
///
/// The live playlists are served under another folder than the VOD set's, with segment URIs pointing back into it,
/// so a test can play the same fixture as VOD and live on one server:
///
/// ```swift
/// let server = try HTTPTestServer(root: try Fixtures.directory())
/// let live = try HLSLiveLadder(.ts, window: .sliding(segments: 3))
/// live.serve(on: server, at: "/live/ts")            // /live/ts/master.m3u8, /live/ts/360p.m3u8, …
/// let item = AVPlayerItem(url: server.url("live/ts/master.m3u8"))
/// live.advance(segments: 1)                          // every media playlist publishes one more segment
/// ```
///
/// Renditions whose segments do not line up with the video's (the audio's last short segment) advance by segment
/// count like the others; with `.realTime` each follows its own durations.
public final class HLSLiveLadder: Sendable {
    /// The multivariant playlist's text.
    public let multivariantPlaylist: String
    /// The live window of each media playlist, by its URI in the multivariant playlist (`"360p.m3u8"`).
    public let windows: [String: HLSLiveWindow]
    /// The folder of the VOD set, relative to the fixture folder (`"hls/ts"`).
    public let folder: String

    /// Makes every media playlist of `fixture` (a multivariant one) live, each with the given options.
    public convenience init(
        _ fixture: HLSFixture, window: HLSLiveWindow.Window = .sliding(segments: 3), initialSegments: Int? = nil,
        atEnd endBehavior: HLSLiveWindow.EndBehavior = .endList, advance: HLSLiveWindow.Advance = .manual
    ) throws {
        try self.init(
            multivariantPlaylist: try Fixtures.url(fixture), folder: fixture.folder, window: window,
            initialSegments: initialSegments, atEnd: endBehavior, advance: advance)
    }

    /// Makes every media playlist named by the multivariant playlist at `url` live. `folder` is where the VOD set
    /// is served from (the segment URIs become `/<folder>/<uri>`).
    public init(
        multivariantPlaylist url: URL, folder: String, window: HLSLiveWindow.Window = .sliding(segments: 3),
        initialSegments: Int? = nil, atEnd endBehavior: HLSLiveWindow.EndBehavior = .endList,
        advance: HLSLiveWindow.Advance = .manual
    ) throws {
        let text = try String(contentsOf: url, encoding: .utf8)
        let base = url.deletingLastPathComponent()
        let trimmed = folder.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        var windows: [String: HLSLiveWindow] = [:]
        for uri in Self.mediaPlaylistURIs(in: text) where windows[uri] == nil {
            windows[uri] = try HLSLiveWindow(
                contentsOf: base.appendingPathComponent(uri), window: window, initialSegments: initialSegments,
                atEnd: endBehavior, advance: advance, uriPrefix: "/\(trimmed)/")
        }
        self.multivariantPlaylist = text
        self.windows = windows
        self.folder = trimmed
    }

    /// Publishes `n` more segments in every media playlist.
    public func advance(segments n: Int = 1) {
        for window in windows.values { window.advance(segments: n) }
    }

    /// Serves the multivariant playlist at `<path>/<masterName>` and each live media playlist at `<path>/<its URI>`.
    public func serve(on server: HTTPTestServer, at path: String, masterName: String = "master.m3u8") {
        let folder = "/" + path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let master = multivariantPlaylist
        server.route("\(folder)/\(masterName)") { _ in HTTPTestResponse(text: master) }
        for (uri, window) in windows {
            window.serve(on: server, at: "\(folder)/\(uri)")
        }
    }

    /// The URIs of the media playlists a multivariant playlist names: the line after each `EXT-X-STREAM-INF` and the
    /// `URI` attribute of each `EXT-X-MEDIA`, in order.
    static func mediaPlaylistURIs(in text: String) -> [String] {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        var uris: [String] = []
        var expectingVariant = false
        for line in lines where !line.isEmpty {
            if line.hasPrefix("#EXT-X-STREAM-INF:") {
                expectingVariant = true
            } else if line.hasPrefix("#EXT-X-MEDIA:"), let range = line.range(of: "URI=\"") {
                let rest = line[range.upperBound...]
                uris.append(String(rest.prefix { $0 != "\"" }))
            } else if !line.hasPrefix("#"), expectingVariant {
                uris.append(line)
                expectingVariant = false
            }
        }
        return uris
    }
}
