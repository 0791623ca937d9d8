import CoreMedia
import FFmpegBridge
import Foundation

/// An MPEG-TS file with timed ID3 metadata, made at test time from `Fixture.h264AACTS` (ffmpeg's command line
/// cannot write ID3 packets, so `TimedID3Remuxer` adds them): the H.264 + AAC streams copied, plus a `timed_id3`
/// data stream (MPEG-TS stream type 0x15) with one ID3v2.4 tag per ``Event``.
///
/// Each tag has three frames naming its index `n` and item time `t`:
/// - `TIT2` (title, UTF-8): "ID3 n AT t" (t with one decimal: "ID3 2 AT 1.0");
/// - `TXXX` (user text) with description "index" and value "n";
/// - `PRIV` (private data) owned by "org.openavfoundation.test", its data the four bytes "ID3" and `n`.
///
/// The file is written once per fixture set (into `derived/` of the fixture folder, renamed into place when
/// whole, so concurrent test processes agree).
public enum TimedID3Fixture {
    /// One tag of the file.
    public struct Event: Sendable, Equatable {
        /// The tag's index (1…).
        public var index: Int
        /// The item time it is due at (the asset's time: container time less its first timestamp).
        public var time: CMTime
        /// The `TIT2` text.
        public var title: String { "ID3 \(index) AT \(String(format: "%.1f", time.seconds))" }
        /// The `PRIV` owner.
        public static let privateOwner = "org.openavfoundation.test"
        /// The `PRIV` data.
        public var privateData: [UInt8] { Array("ID3".utf8) + [UInt8(index)] }
    }

    /// The tags: every 0.5 s from 0.5 s to 2.5 s of the 3 s file.
    public static let events: [Event] = (1...5).map {
        Event(index: $0, time: CMTime(value: Int64($0) * 500, timescale: 1000))
    }

    /// The file's path, made on first use.
    public static func url() throws -> URL { try made.get() }

    private static let made: Result<URL, any Error> = Result { try make() }

    private static func make() throws -> URL {
        let base = try Fixtures.url(.h264AACTS)
        let folder = base.deletingLastPathComponent().appendingPathComponent("derived")
        let url = folder.appendingPathComponent("timed_id3_v2.ts")
        if FileManager.default.fileExists(atPath: url.path) { return url }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let origin = max(0, try FormatContext(url: base.path).info.startTimeMicroseconds ?? 0)
        let tags = events.enumerated().map { i, e in
            let bytes = tag(for: e)
            return TimedID3Remuxer.Tag(
                microseconds: origin + Int64((e.time.seconds * 1_000_000).rounded()),
                bytes: metadataCellHeader(sequence: i, length: bytes.count) + bytes)
        }
        let temporary = folder.appendingPathComponent(".timed_id3.\(getpid()).\(UUID().uuidString).ts")
        do {
            try TimedID3Remuxer.remux(input: base.path, output: temporary.path, formatName: "mpegts", tags: tags)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        if rename(temporary.path, url.path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown)
        }
        return url
    }

    /// The 5-byte metadata access-unit cell header that MPEG-TS stream type 0x15 ("metadata carried in PES",
    /// ISO/IEC 13818-1 §2.12.4) puts before each tag: service ID 0xFF, a sequence number, complete cell
    /// (fragment indication 0b11), random access, the tag's length. libavformat's demuxer strips these five bytes
    /// from every such PES packet; its 5.x muxer does not write them, so they are written here as part of the data.
    static func metadataCellHeader(sequence: Int, length: Int) -> [UInt8] {
        [0xff, UInt8(sequence & 0xff), 0xdf, UInt8((length >> 8) & 0xff), UInt8(length & 0xff)]
    }

    /// The ID3v2.4 tag written for `event`.
    public static func tag(for event: Event) -> [UInt8] {
        ID3TagBuilder.tag(frames: [
            ID3TagBuilder.textFrame("TIT2", event.title),
            ID3TagBuilder.userTextFrame(description: "index", value: String(event.index)),
            ID3TagBuilder.privateFrame(owner: Event.privateOwner, data: event.privateData),
        ])
    }
}

/// Builds ID3v2.4 tags byte by byte (ID3v2.4.0 main structure §3–4: a 10-byte header, frames with 10-byte
/// headers, sizes as 28-bit sync-safe integers).
public enum ID3TagBuilder {
    /// A whole tag holding `frames` (each made by the functions below).
    public static func tag(frames: [[UInt8]]) -> [UInt8] {
        let body = frames.flatMap { $0 }
        return Array("ID3".utf8) + [4, 0, 0] + syncSafe(body.count) + body
    }

    /// A text frame (`T…`) in UTF-8 (encoding byte 3).
    public static func textFrame(_ id: String, _ text: String) -> [UInt8] {
        frame(id, [3] + Array(text.utf8))
    }

    /// A `TXXX` frame: UTF-8 description, a NUL, the value.
    public static func userTextFrame(description: String, value: String) -> [UInt8] {
        frame("TXXX", [3] + Array(description.utf8) + [0] + Array(value.utf8))
    }

    /// A `PRIV` frame: the owner (Latin-1), a NUL, the data.
    public static func privateFrame(owner: String, data: [UInt8]) -> [UInt8] {
        frame("PRIV", Array(owner.utf8) + [0] + data)
    }

    /// A frame with header `id`, no flags.
    public static func frame(_ id: String, _ content: [UInt8]) -> [UInt8] {
        Array(id.utf8) + syncSafe(content.count) + [0, 0] + content
    }

    /// `n` as four 7-bit bytes, most significant first.
    public static func syncSafe(_ n: Int) -> [UInt8] {
        [UInt8((n >> 21) & 0x7f), UInt8((n >> 14) & 0x7f), UInt8((n >> 7) & 0x7f), UInt8(n & 0x7f)]
    }
}
