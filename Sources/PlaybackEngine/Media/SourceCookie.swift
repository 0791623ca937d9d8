import Foundation

/// A cookie an asset sends with its HTTP requests (`AVURLAssetHTTPCookiesKey`): what `HTTPCookie` says of it, as a
/// value any thread can hold. Sent by the standard rules (RFC 6265 §5.4): a request whose host is the cookie's domain
/// or, for a domain cookie (a leading dot), one of its subdomains; whose path is under the cookie's path; over HTTPS
/// only when the cookie is secure; not once it expired.
package struct SourceCookie: Sendable, Hashable {
    package var name: String
    package var value: String
    /// The host it belongs to; a leading dot (".example.com") matches the subdomains too.
    package var domain: String
    package var path: String
    package var isSecure: Bool
    package var expiresDate: Date?

    package init(name: String, value: String, domain: String, path: String, isSecure: Bool, expiresDate: Date?) {
        self.name = name
        self.value = value
        self.domain = domain
        self.path = path.isEmpty ? "/" : path
        self.isSecure = isSecure
        self.expiresDate = expiresDate
    }

    /// Whether a request for `url` carries the cookie.
    package func matches(_ url: URL, now: Date = Date()) -> Bool {
        guard let host = url.host?.lowercased() else { return false }
        if let expiresDate, expiresDate < now { return false }
        if isSecure && url.scheme?.lowercased() != "https" { return false }
        let domain = self.domain.lowercased()
        let bare = domain.hasPrefix(".") ? String(domain.dropFirst()) : domain
        let hostMatches = host == bare || (domain.hasPrefix(".") && host.hasSuffix("." + bare))
        guard hostMatches else { return false }
        let requestPath = url.path.isEmpty ? "/" : url.path
        if requestPath == path { return true }
        guard requestPath.hasPrefix(path) else { return false }
        return path.hasSuffix("/") || requestPath.dropFirst(path.count).hasPrefix("/")
    }

    /// The `Cookie` header value for a request of `url` (`name=value` pairs, longest path first), nil when none
    /// applies.
    package static func header(for url: URL, from cookies: [SourceCookie]) -> String? {
        let applicable = cookies.filter { $0.matches(url) }.sorted { $0.path.count > $1.path.count }
        guard !applicable.isEmpty else { return nil }
        return applicable.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }
}
