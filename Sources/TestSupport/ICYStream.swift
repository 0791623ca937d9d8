import Foundation

/// A SHOUTcast/Icecast ("ICY") radio stream made from an audio file, for tests of `StreamTitle` metadata: the
/// file's bytes with a metadata block after every `metaint` of them, served by `HTTPTestServer` with
/// `icy-metaint` (to clients that ask with `Icy-MetaData: 1`, as libavformat's http protocol does; others get the
/// plain bytes), not rangeable, as a radio station answers.
///
/// Block k (after k × `metaint` audio bytes, k = 1, 2 …) carries `StreamTitle='<titles[k]>';` when `titles` has an
/// entry for k, else is empty (a zero length byte: no change), as the protocol has it.
public struct ICYStream: Sendable {
    /// The audio bytes.
    public let audio: Data
    /// Audio bytes between two metadata blocks.
    public let metaint: Int
    /// The title announced in block k.
    public let titles: [Int: String]

    public init(audio: Data, metaint: Int, titles: [Int: String]) {
        self.audio = audio
        self.metaint = metaint
        self.titles = titles
    }

    /// The body for a client that asked for metadata: audio with the blocks interleaved.
    public var bodyWithMetadata: Data {
        var body = Data()
        var offset = 0
        var k = 1
        while offset < audio.count {
            let end = min(audio.count, offset + metaint)
            body.append(audio[offset..<end])
            if end - offset == metaint { body.append(contentsOf: Self.block(titles[k])) }
            offset = end
            k += 1
        }
        return body
    }

    /// A metadata block: a length byte (in units of 16 bytes), then the text padded with NULs.
    static func block(_ title: String?) -> [UInt8] {
        guard let title else { return [0] }
        var text = Array("StreamTitle='\(title)';".utf8)
        let units = (text.count + 15) / 16
        text += [UInt8](repeating: 0, count: units * 16 - text.count)
        return [UInt8(units)] + text
    }

    /// Answers `path` on `server` with the stream (`audio/mpeg`).
    public func serve(on server: HTTPTestServer, at path: String, contentType: String = "audio/mpeg") {
        let withMetadata = bodyWithMetadata
        let plain = audio
        let metaint = self.metaint
        server.route(path) { request in
            let wants = request.headers["icy-metadata"] == "1"
            var headers = ["Content-Type": contentType, "Accept-Ranges": "none", "icy-name": "OpenAVFoundation test"]
            if wants { headers["icy-metaint"] = String(metaint) }
            return HTTPTestResponse(status: 200, headers: headers, body: wants ? withMetadata : plain)
        }
    }
}
