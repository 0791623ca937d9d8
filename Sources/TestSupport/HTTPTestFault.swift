import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Something `HTTPTestServer` does wrong on purpose to the requests a rule matches.
///
/// Several faults can apply to one request (a delay and a throttle, say); `.noResponse` wins over everything,
/// then `.status` and `.redirect` replace the answer, and the others shape how the answer is sent.
public enum HTTPTestFault: Sendable, Equatable {
    /// Answers this status (with a short text body) instead of the resource.
    case status(Int)
    /// Waits this many seconds (at most `HTTPTestServer.holdLimit`) before the status line; `stop()` ends the wait.
    case delay(TimeInterval)
    /// Sends the body at most this many bytes per second, in ticks of `HTTPTestServer.throttleTick`.
    case throttle(bytesPerSecond: Int)
    /// Sends this many body bytes, then resets the connection (`SO_LINGER` 0, so the client sees a reset, not an
    /// orderly end). A shorter body is sent whole, without a reset.
    case reset(afterBodyBytes: Int)
    /// Sends no `Content-Length` and a body that never ends: the resource's bytes repeated (a filler when it is
    /// empty), until the client goes, `stop()`, or `HTTPTestServer.endlessBodyLimit` bytes.
    case endlessBody
    /// Accepts the request and never answers, until `stop()` or `HTTPTestServer.holdLimit`.
    case noResponse
    /// Answers a redirect (`301`, `302`, `307`, …) to `location`, a path on this server or an absolute URL.
    case redirect(status: Int, location: String)
    /// Sends the resource's bytes before this offset (of the whole resource, whatever the range asked) and holds
    /// the rest until `HTTPTestServer.releaseHeldBodies()`; a range that starts at or after the offset is served at
    /// once. A progressive download that runs dry.
    case holdBody(fromOffset: Int)
}

/// Which of the requests that match a rule's path the fault applies to.
public enum HTTPTestFaultSchedule: Sendable, Equatable {
    /// Every matching request.
    case always
    /// Only the `n`th matching request after the rule was added (1 is the next one).
    case nth(Int)
    /// The next `count` matching requests.
    case next(Int)
}

/// A fault with the requests it applies to; `HTTPTestServer.inject` returns its identifier.
struct HTTPTestFaultRule: Sendable {
    /// What `HTTPTestServer.removeFault(_:)` takes.
    var id: Int
    /// An exact path (`/hls/ts/360p_002.ts`) or a `fnmatch` glob whose `*` also matches `/` (`*.ts`,
    /// `/hls/*/360p_*`).
    var pattern: String
    var fault: HTTPTestFault
    var schedule: HTTPTestFaultSchedule
    /// Requests matched so far.
    var matched = 0

    /// Whether `path` matches the pattern.
    func matches(_ path: String) -> Bool {
        if pattern == path { return true }
        return fnmatch(pattern, path, 0) == 0
    }

    /// Counts a matching request and says whether the fault applies to it.
    mutating func applies(to path: String) -> Bool {
        guard matches(path) else { return false }
        matched += 1
        switch schedule {
        case .always: return true
        case .nth(let n): return matched == n
        case .next(let count): return matched <= count
        }
    }

    /// Whether the rule can never apply again.
    var isSpent: Bool {
        switch schedule {
        case .always: return false
        case .nth(let n): return matched >= n
        case .next(let count): return matched >= count
        }
    }
}
