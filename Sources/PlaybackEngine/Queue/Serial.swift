/// The generation of a packet queue's contents (ffplay's `serial`).
///
/// Every flush (a seek, a restart) moves a queue to the ``next()`` serial; each packet is stamped
/// with the serial current when it was queued, and each decoded frame with its packet's serial. A
/// stage compares what it holds with its queue's current serial and drops stale items itself, so a
/// seek never has to purge work in flight on other threads (DESIGN.md "Invalidate by serial").
///
/// Serials only grow, so a later generation compares greater.
package struct Serial: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The generation number.
    package var rawValue: UInt64

    /// A serial with the given generation number.
    package init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// The serial a new queue starts with.
    package static let initial = Serial(rawValue: 1)

    /// The following generation.
    package func next() -> Serial {
        Serial(rawValue: rawValue &+ 1)
    }

    /// Whether `lhs` is an earlier generation than `rhs`.
    package static func < (lhs: Serial, rhs: Serial) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// `#n`, for logs.
    package var description: String { "#\(rawValue)" }
}
