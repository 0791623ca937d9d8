import Dispatch
import Foundation
import Synchronization

/// A small HTTP/1.1 server on 127.0.0.1 for tests: `/status/404` answers that status, other paths
/// serve files from `root` with byte-range support (libavformat seeks with `Range:`).
/// Requests are bounded: each connection is served once and closed.
final class LoopbackHTTPServer: @unchecked Sendable {
    let port: UInt16
    private let fd: Int32
    private let root: URL
    private let stopped = Atomic<Bool>(false)
    private let requests = Atomic<Int>(0)
    /// Requests received so far (whatever they asked for).
    var requestCount: Int { requests.load(ordering: .relaxed) }
    /// Bytes at or after this offset of any file are held back until ``openGate()`` (stall tests).
    private let gateOffset: Int?
    private let gate = NSCondition()
    private var gateOpen = false
    private let queue = DispatchQueue(label: "LoopbackHTTPServer", attributes: .concurrent)

    init(root: URL, gateOffset: Int? = nil) throws {
        self.root = root
        self.gateOffset = gateOffset
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &len) }
        }
        port = UInt16(bigEndian: addr.sin_port)
        queue.async { [self] in acceptLoop() }
    }

    /// Releases the bytes held back at the gate.
    func openGate() {
        gate.lock()
        gateOpen = true
        gate.broadcast()
        gate.unlock()
    }

    /// Waits (at most 30 s, so a test never hangs) until the gate opens.
    private func waitForGate() {
        gate.lock()
        let deadline = Date().addingTimeInterval(30)
        while !gateOpen && !stopped.load(ordering: .relaxed) && Date() < deadline {
            _ = gate.wait(until: Date().addingTimeInterval(0.05))
        }
        gate.unlock()
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)/\(path)")! }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }

    private func acceptLoop() {
        while !stopped.load(ordering: .relaxed) {
            let client = accept(fd, nil, nil)
            if client < 0 { return }
            queue.async { [self] in serve(client) }
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        var request = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.suffix(4).elementsEqual([13, 10, 13, 10]) {
            let n = recv(client, &buffer, buffer.count, 0)
            if n <= 0 { return }
            request += buffer[0..<n]
            if request.count > 65536 { return }
        }
        let text = String(decoding: request, as: UTF8.self)
        let lines = text.components(separatedBy: "\r\n")
        let parts = lines.first?.split(separator: " ") ?? []
        guard parts.count >= 2 else { return }
        requests.add(1, ordering: .relaxed)
        let path = String(parts[1].dropFirst())
        if path.hasPrefix("status/"), let code = Int(path.dropFirst(7)) {
            send(client, "HTTP/1.1 \(code) Test\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", body: [])
            return
        }
        guard let data = try? Data(contentsOf: root.appendingPathComponent(path)) else {
            send(client, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", body: [])
            return
        }
        var start = 0
        var header =
            "HTTP/1.1 200 OK\r\nContent-Length: \(data.count)\r\nAccept-Ranges: bytes\r\n"
            + "Content-Type: video/mp4\r\nConnection: close\r\n\r\n"
        if let range = lines.first(where: { $0.lowercased().hasPrefix("range: bytes=") }) {
            let spec = range.split(separator: "=")[1].split(separator: "-", omittingEmptySubsequences: false)
            start = min(Int(spec[0]) ?? 0, data.count)
            header =
                "HTTP/1.1 206 Partial Content\r\nContent-Length: \(data.count - start)\r\n"
                + "Content-Range: bytes \(start)-\(data.count - 1)/\(data.count)\r\n"
                + "Accept-Ranges: bytes\r\nConnection: close\r\n\r\n"
        }
        let body = [UInt8](data[start...])
        // A read from before the gate gets the bytes up to it now and the rest once it opens;
        // reads that start past it (probing the end of the file) are served at once.
        if let gateOffset, start < gateOffset, gateOffset < data.count {
            send(client, header, body: Array(body[0..<(gateOffset - start)]))
            waitForGate()
            send(client, "", body: Array(body[(gateOffset - start)...]))
            return
        }
        send(client, header, body: body)
    }

    private func send(_ client: Int32, _ header: String, body: [UInt8]) {
        let bytes = Array(header.utf8) + body
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes {
                Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if n <= 0 { return }
            offset += n
        }
    }
}
