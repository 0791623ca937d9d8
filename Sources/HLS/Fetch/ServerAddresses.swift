import Foundation
import OAVFLocking

#if canImport(Glibc)
import Glibc
#endif

/// The numeric address of a server, as the access and error logs report it (`serverAddress`: "the IP address of
/// the server"): a host given as an address is kept; a name is resolved once per client (the first address
/// `getaddrinfo` gives, which is the one a connection tries first) and remembered, so every entry of a host reports
/// the same address. A name that does not resolve is reported as it is.
///
/// Thread-safe; resolving runs on the caller's thread (the network thread, after a transfer, when the name was just
/// resolved for the connection and the system answers from its cache).
final class ServerAddresses: @unchecked Sendable {
    /// Addresses resolved so far, by host. Read and written by the source's reading and transfer threads as they
    /// log requests; never held while resolving. Not an engine command: a cache of the HLS client, not playback
    /// state.
    private let known = Locked<[String: String]>([:])

    /// `url`'s server address; nil without a host.
    func address(of url: URL) -> String? {
        guard var host = url.host, !host.isEmpty else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if let address = known.withLock({ $0[host] }) { return address }
        let address = Self.isNumeric(host) ? host : Self.resolve(host) ?? host
        known.withLock { $0[host] = address }
        return address
    }

    /// Whether `host` is an IPv4 or IPv6 address already.
    static func isNumeric(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// The first address `getaddrinfo` gives for `host`, as text; nil when it does not resolve.
    static func resolve(_ host: String) -> String? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(list) }
        var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard
            getnameinfo(
                first.pointee.ai_addr, first.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST)
                == 0
        else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
