import Foundation
import OAVFLocking

/// What one engine (one player) remembers of the servers its streamed items came from: the latest bandwidth
/// estimate of the last item played from each host, so that the next item from that host starts on the variant the
/// link carries instead of the first listed (Apple's player carries its measurement from item to item the same way).
///
/// Thread-safe: the engine's preparation threads record and read.
package final class BandwidthHistory: Sendable {
    /// The variant controls of the latest streamed source opened per host (lower-cased), whose
    /// ``VariantControl/estimatedBitRate`` is read when the next item from that host is prepared. The engine thread
    /// (preparing an item) and the sources' threads. Not an engine command: sources read it from their own threads.
    private let controls = Locked<[String: VariantControl]>([:])

    package init() {}

    /// The host of `location` (a URL string), lower-cased; nil for a location without one (a file).
    package static func host(of location: String) -> String? {
        URL(string: location)?.host?.lowercased()
    }

    /// The latest estimate measured of `location`'s host by the items remembered; nil when none measured it.
    package func estimate(for location: String) -> Double? {
        guard let host = Self.host(of: location) else { return nil }
        return controls.withLock { $0[host] }?.estimatedBitRate
    }

    /// Remembers `control` (the adaptive state of a source just opened for `location`) for the next items from its
    /// host.
    package func remember(_ control: VariantControl, for location: String) {
        guard let host = Self.host(of: location) else { return }
        controls.withLock { $0[host] = control }
    }
}
