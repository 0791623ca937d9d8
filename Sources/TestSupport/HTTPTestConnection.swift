import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One accepted connection of an `HTTPTestServer`, served on its own thread: reads requests one after another
/// (keep-alive), answers each with its faults applied, and closes the socket when done.
struct HTTPTestConnection {
    let core: HTTPTestServerCore
    let socket: Int32
    let number: Int

    /// The largest request head read (a test client never sends more).
    private static let maximumHeadSize = 64 << 10
    /// Body bytes sent per `send` call.
    private static let chunkSize = 16 << 10

    /// How an answer left the connection.
    private enum Outcome {
        /// Ready for the next request.
        case keepOpen
        /// Close the connection normally.
        case close
        /// The socket was reset and closed already.
        case reset
    }

    /// Serves requests until the client closes, asks to close, a fault ends the connection, or the server stops.
    func serve() {
        var pending = [UInt8]()
        var outcome = Outcome.close
        while !core.isStopped, let head = readHead(&pending) {
            guard let request = parse(head) else {
                send(Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
                break
            }
            if let length = request.headers["content-length"].flatMap(Int.init), length > 0 {
                guard discardBody(length, &pending) else { break }
            }
            outcome = answer(request)
            guard case .keepOpen = outcome else { break }
        }
        if case .reset = outcome { return }
        core.closeClient(socket, reset: false)
    }

    // MARK: Reading

    /// Reads up to the end of the next request head (`\r\n\r\n`); leftover bytes stay in `pending`.
    private func readHead(_ pending: inout [UInt8]) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var searchFrom = 0
        while true {
            if pending.count >= 4 {
                for i in max(0, searchFrom - 3)...(pending.count - 4)
                where pending[i] == 13 && pending[i + 1] == 10 && pending[i + 2] == 13 && pending[i + 3] == 10 {
                    let head = Array(pending[..<i])
                    pending.removeFirst(i + 4)
                    return head
                }
                searchFrom = pending.count
            }
            guard pending.count <= Self.maximumHeadSize else { return nil }
            let n = recv(socket, &buffer, buffer.count, 0)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            pending += buffer[0..<n]
        }
    }

    /// Reads and drops a request body of `length` bytes (bounded, as test clients send small ones).
    private func discardBody(_ length: Int, _ pending: inout [UInt8]) -> Bool {
        guard length <= 16 << 20 else { return false }
        var left = length
        let fromPending = min(left, pending.count)
        pending.removeFirst(fromPending)
        left -= fromPending
        var buffer = [UInt8](repeating: 0, count: 16384)
        while left > 0 {
            let n = recv(socket, &buffer, min(buffer.count, left), 0)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            left -= n
        }
        return true
    }

    /// A request head with its HTTP version.
    private struct Head {
        var request: HTTPTestRequest
        var version: String
        var headers: [String: String] { request.headers }
    }

    private func parse(_ bytes: [UInt8]) -> Head? {
        let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count == 3, parts[1].hasPrefix("/") || parts[1].hasPrefix("http") else { return nil }
        var target = String(parts[1])
        if target.hasPrefix("http"), let url = URL(string: target) {
            target = url.path.isEmpty ? "/" : url.path + (url.query.map { "?" + $0 } ?? "")
        }
        let pieces = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let rawPath = String(pieces[0])
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let request = HTTPTestRequest(
            method: String(parts[0]), path: rawPath.removingPercentEncoding ?? rawPath,
            query: pieces.count > 1 ? String(pieces[1]) : nil, headers: headers, connection: number)
        return Head(request: request, version: String(parts[2]))
    }

    // MARK: Answering

    /// The answer before faults shape how it is sent.
    private struct Answer {
        var status: Int
        var headers: [String: String]
        var body: Data
        /// Whether `Range:` applies (files and routed `200` bodies).
        var rangeable: Bool
    }

    private func answer(_ head: Head) -> Outcome {
        let request = head.request
        let start = Date()
        let (faults, handler, index) = core.withLock { state in
            var faults: [HTTPTestFault] = []
            for i in state.rules.indices where state.rules[i].applies(to: request.path) {
                faults.append(state.rules[i].fault)
            }
            state.rules.removeAll(where: \.isSpent)
            state.log.append(
                HTTPTestRequestRecord(
                    method: request.method, path: request.path, range: request.headers["range"], status: 0,
                    bytesSent: 0, connection: number, faults: faults, throttleTicks: 0, waitedBeforeHeaders: 0,
                    wasReset: false, start: start, end: nil, headers: request.headers))
            return (faults, state.routes[request.path], state.log.count - 1)
        }
        var record = Progress()
        defer {
            core.withLock { state in
                state.log[index].status = record.status
                state.log[index].bytesSent = record.bytesSent
                state.log[index].throttleTicks = record.ticks.count
                state.log[index].waitedBeforeHeaders = record.waited
                state.log[index].wasReset = record.wasReset
                state.log[index].end = Date()
            }
        }

        if faults.contains(.noResponse) {
            _ = core.wait(atMost: HTTPTestServer.holdLimit) { _ in false }
            return .close
        }
        for case .delay(let seconds) in faults {
            let began = Date()
            _ = core.wait(atMost: min(seconds, HTTPTestServer.holdLimit)) { _ in false }
            record.waited += Date().timeIntervalSince(began)
        }
        if core.isStopped { return .close }

        var answer = resolve(request, faults: faults, handler: handler)
        let endless = faults.contains(.endlessBody) && answer.status == 200
        let version = head.version.uppercased()
        let connectionHeader = head.headers["connection"]?.lowercased()
        let keepAlive =
            !endless && (version == "HTTP/1.1" ? connectionHeader != "close" : connectionHeader == "keep-alive")

        var range = 0..<answer.body.count
        if answer.rangeable, answer.status == 200, !endless, let spec = head.headers["range"] {
            switch Self.byteRange(spec, size: answer.body.count) {
            case .whole: break
            case .part(let r):
                range = r
                answer.status = 206
                answer.headers["Content-Range"] = "bytes \(r.lowerBound)-\(r.upperBound - 1)/\(answer.body.count)"
            case .unsatisfiable:
                answer.status = 416
                answer.headers["Content-Range"] = "bytes */\(answer.body.count)"
                range = 0..<0
                answer.body = Data()
            }
        }

        var lines = ["HTTP/1.1 \(answer.status) \(Self.reason(answer.status))"]
        if answer.headers["Content-Type"] == nil {
            answer.headers["Content-Type"] =
                answer.rangeable ? Self.contentType(forPath: request.path) : "text/plain; charset=utf-8"
        }
        for (name, value) in answer.headers.sorted(by: { $0.key < $1.key }) { lines.append("\(name): \(value)") }
        if answer.rangeable { lines.append("Accept-Ranges: bytes") }
        if !endless { lines.append("Content-Length: \(range.count)") }
        lines.append("Connection: \(keepAlive ? "keep-alive" : "close")")
        record.status = answer.status
        guard send(Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)) else { return .close }
        if request.method == "HEAD" { return keepAlive ? .keepOpen : .close }

        let sent = sendBody(answer.body, range: range, endless: endless, faults: faults, record: &record)
        switch sent {
        case .reset: return .reset
        case .close: return .close
        case .keepOpen: return keepAlive ? .keepOpen : .close
        }
    }

    /// What happened while answering, written to the log record at the end.
    private struct Progress {
        var status = 0
        var bytesSent = 0
        var ticks: Set<Int> = []
        var waited: TimeInterval = 0
        var wasReset = false
    }

    /// The answer a request gets before faults shape its sending: a fault's status or redirect, a route, a
    /// `/status/<code>` path, or a file.
    private func resolve(
        _ request: HTTPTestRequest, faults: [HTTPTestFault],
        handler: (@Sendable (HTTPTestRequest) -> HTTPTestResponse)?
    ) -> Answer {
        for fault in faults {
            switch fault {
            case .status(let code):
                return Answer(
                    status: code, headers: [:], body: Data("HTTP \(code) (injected)\n".utf8), rangeable: false)
            case .redirect(let code, let location):
                return Answer(status: code, headers: ["Location": location], body: Data(), rangeable: false)
            default: continue
            }
        }
        if let handler {
            let response = handler(request)
            return Answer(
                status: response.status, headers: response.headers, body: response.body,
                rangeable: response.status == 200 && response.headers["Accept-Ranges"] != "none")
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return Answer(status: 405, headers: ["Allow": "GET, HEAD"], body: Data(), rangeable: false)
        }
        if let file = fileURL(for: request.path),
            let data = try? Data(contentsOf: file, options: .alwaysMapped)
        {
            return Answer(status: 200, headers: [:], body: data, rangeable: true)
        }
        if request.path.hasPrefix("/status/"), let code = Int(request.path.dropFirst(8)), (100...599).contains(code) {
            return Answer(status: code, headers: [:], body: Data(), rangeable: false)
        }
        return Answer(status: 404, headers: [:], body: Data("not found: \(request.path)\n".utf8), rangeable: false)
    }

    /// The regular file `path` names under the root, or `nil` (no root, a folder, missing, or outside the root).
    private func fileURL(for path: String) -> URL? {
        guard let root = core.root else { return nil }
        let file = root.appendingPathComponent(String(path.drop(while: { $0 == "/" }))).standardizedFileURL
        guard file.path.hasPrefix(root.path + "/") else { return nil }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isFolder), !isFolder.boolValue else {
            return nil
        }
        return file
    }

    // MARK: Sending

    /// Sends `body[range]` (or `body` forever, when `endless`) with the throttle, reset and hold faults and the
    /// server-wide cap applied.
    private func sendBody(
        _ body: Data, range: Range<Int>, endless: Bool, faults: [HTTPTestFault], record: inout Progress
    ) -> Outcome {
        let source = endless && body.isEmpty ? Data(repeating: UInt8(ascii: "#"), count: 4096) : body
        let total = endless ? HTTPTestServer.endlessBodyLimit : range.count
        var resetAt: Int?
        var holdAt: Int?
        var throttle: ByteRateLimiter?
        for fault in faults {
            switch fault {
            case .reset(let n): resetAt = min(resetAt ?? n, max(0, n))
            case .holdBody(let offset) where range.lowerBound < offset && offset < range.upperBound && !endless:
                holdAt = offset - range.lowerBound
            case .throttle(let rate):
                throttle = ByteRateLimiter(bytesPerSecond: max(1, rate), tick: HTTPTestServer.throttleTick)
            default: continue
            }
        }
        let stopped = { core.isStopped }
        while record.bytesSent < total {
            let sent = record.bytesSent
            if let resetAt, sent >= resetAt {
                record.wasReset = true
                core.closeClient(socket, reset: true)
                return .reset
            }
            if let hold = holdAt, sent == hold {
                guard core.wait(atMost: HTTPTestServer.holdLimit, until: \.heldBodiesReleased) else { return .close }
                holdAt = nil
            }
            var chunk = min(Self.chunkSize, total - sent)
            if let resetAt { chunk = min(chunk, resetAt - sent) }
            if let hold = holdAt { chunk = min(chunk, hold - sent) }
            if let throttle {
                let grant = throttle.take(chunk, isCancelled: stopped)
                guard grant.bytes > 0 else { return .close }
                chunk = grant.bytes
                if let tick = grant.tick { record.ticks.insert(tick) }
            }
            let shared = core.sharedLimiter.take(chunk, isCancelled: stopped)
            guard shared.bytes > 0 else { return .close }
            chunk = shared.bytes
            if let tick = shared.tick {
                record.ticks.insert(tick)
                core.withLock { _ = $0.sharedTicks.insert(tick) }
            }
            let ok: Bool
            if endless {
                let start = (range.lowerBound + sent) % source.count
                let piece = min(chunk, source.count - start)
                ok = send(source, start..<(start + piece))
                chunk = piece
            } else {
                ok = send(source, (range.lowerBound + sent)..<(range.lowerBound + sent + chunk))
            }
            guard ok else { return .close }
            record.bytesSent += chunk
        }
        return endless ? .close : .keepOpen
    }

    @discardableResult
    private func send(_ bytes: [UInt8]) -> Bool {
        send(Data(bytes), 0..<bytes.count)
    }

    /// Sends `data[range]` completely; `false` when the client went away (or the server stopped).
    private func send(_ data: Data, _ range: Range<Int>) -> Bool {
        data.withUnsafeBytes { raw in
            var offset = range.lowerBound
            while offset < range.upperBound {
                let n = Glibc.send(socket, raw.baseAddress! + offset, range.upperBound - offset, Int32(MSG_NOSIGNAL))
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
    }

    // MARK: Tables

    /// What a `Range:` value asks of a body.
    enum ByteRangeRequest: Equatable {
        /// The whole body, as a `200` (a malformed value is ignored, as RFC 9110 says).
        case whole
        /// These bytes, as a `206`.
        case part(Range<Int>)
        /// Nothing the body holds: `416`.
        case unsatisfiable
    }

    /// What a `Range:` value asks of a body of `size` bytes (only the first range of a list is honoured).
    static func byteRange(_ spec: String, size: Int) -> ByteRangeRequest {
        let value = spec.trimmingCharacters(in: .whitespaces)
        guard value.lowercased().hasPrefix("bytes=") else { return .whole }
        let first = value.dropFirst(6).split(separator: ",").first ?? ""
        let ends = first.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard ends.count == 2 else { return .whole }
        if ends[0].isEmpty {
            guard let suffix = Int(ends[1]), suffix > 0, size > 0 else { return .unsatisfiable }
            return .part(max(0, size - suffix)..<size)
        }
        guard let start = Int(ends[0]), start >= 0 else { return .whole }
        guard start < size else { return .unsatisfiable }
        if ends[1].isEmpty { return .part(start..<size) }
        guard let last = Int(ends[1]), last >= start else { return .whole }
        return .part(start..<(min(last, size - 1) + 1))
    }

    /// The `Content-Type` of a file, by its extension.
    static func contentType(forPath path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "m3u8": return "application/vnd.apple.mpegurl"
        case "ts": return "video/mp2t"
        case "m4s": return "video/iso.segment"
        case "mp4", "m4v": return "video/mp4"
        case "m4a": return "audio/mp4"
        case "vtt", "webvtt": return "text/vtt"
        case "aac": return "audio/aac"
        case "mp3": return "audio/mpeg"
        case "mkv": return "video/x-matroska"
        case "webm": return "video/webm"
        case "txt": return "text/plain; charset=utf-8"
        default: return "application/octet-stream"
        }
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 206: return "Partial Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 416: return "Range Not Satisfiable"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        default: return "Status"
        }
    }
}
