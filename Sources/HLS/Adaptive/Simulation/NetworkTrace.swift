import Foundation

/// A recorded network link: the bytes it carries in each 100 ms slot, and the latency before a request's first byte
/// (the trace bench's format, shared by the loopback server's replay and the segment simulation). Past its last slot
/// the trace starts again from its first.
///
/// The text form, one item a line (`#` starts a comment, blank lines are skipped):
///
/// ```
/// # A 5 s outage in a 4 Mbit/s link.
/// latency 40          (milliseconds)
/// 50000*200           (50,000 bytes in each of 200 slots: 20 s at 4 Mbit/s)
/// 0*50
/// 50000*350
/// ```
///
/// A value: any thread.
package struct NetworkTrace: Sendable, Equatable {
    /// The length of a slot in seconds.
    package static let slot = 0.1

    /// A name for tables (the file's, without its extension).
    package var name: String
    /// Bytes the link carries in each slot.
    package let bytesPerSlot: [Int]
    /// Seconds from a request to its first byte.
    package var latency: Double

    package init(name: String, bytesPerSlot: [Int], latency: Double) {
        self.name = name
        self.bytesPerSlot = bytesPerSlot.isEmpty ? [0] : bytesPerSlot.map { max(0, $0) }
        self.latency = max(0, latency)
        var sums = [0]
        for bytes in self.bytesPerSlot { sums.append(sums[sums.count - 1] + bytes) }
        cache = PrefixSums(prefix: sums)
    }

    /// Running sums of the slots, made once (a transfer's arrival is a binary search in them).
    private struct PrefixSums: Sendable, Equatable {
        var prefix: [Int]
    }

    private let cache: PrefixSums

    /// Why a trace's text could not be read.
    package struct FormatError: Error, Equatable, CustomStringConvertible {
        package var line: Int
        package var text: String
        package var description: String { "trace line \(line): cannot read “\(text)”" }
    }

    /// Reads the text form (see the type's description).
    package init(name: String, text: String) throws(FormatError) {
        var slots: [Int] = []
        var latency = 0.0
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard let first = words.first else { continue }
            if first == "latency", words.count == 2, let ms = Double(words[1]), ms >= 0, ms.isFinite {
                latency = ms / 1000
                continue
            }
            let parts = first.split(separator: "*")
            guard words.count == 1, parts.count <= 2, let bytes = Int(parts[0]), bytes >= 0,
                let count = parts.count == 2 ? Int(parts[1]) : 1, count > 0, count <= 1_000_000
            else { throw FormatError(line: number + 1, text: String(raw)) }
            slots += repeatElement(bytes, count: count)
        }
        guard !slots.isEmpty, slots.contains(where: { $0 > 0 }) else { throw FormatError(line: 0, text: "no bytes") }
        self.init(name: name, bytesPerSlot: slots, latency: latency)
    }

    /// Reads the trace file at `url` (its name without the extension names it).
    package init(contentsOf url: URL) throws {
        try self.init(
            name: url.deletingPathExtension().lastPathComponent, text: String(contentsOf: url, encoding: .utf8))
    }

    /// The trace's length in seconds.
    package var duration: Double { Double(bytesPerSlot.count) * Self.slot }

    /// The bytes slot `index` carries (repeating past the end).
    package func bytes(inSlot index: Int) -> Int {
        bytesPerSlot[((index % bytesPerSlot.count) + bytesPerSlot.count) % bytesPerSlot.count]
    }

    /// The mean rate over the trace in bits per second.
    package var meanBitRate: Double {
        Double(bytesPerSlot.reduce(0, +)) * 8 / duration
    }

    /// When a transfer of `count` bytes asked for at `start` (seconds from the trace's start) has its last byte: after
    /// the latency, the link carries it at the trace's rate (a slot's bytes spread evenly over it). One transfer at a
    /// time has the link (segments are fetched one after the other). Never, on a trace that carries nothing.
    package func arrival(ofBytes count: Double, requestedAt start: Double) -> Double {
        let first = start + latency
        guard count > 0 else { return first }
        guard totalBytes > 0 else { return .infinity }
        return time(atCumulativeBytes: cumulativeBytes(at: first) + count)
    }

    /// Bytes the link carried from the trace's start to `time` (seconds).
    func cumulativeBytes(at time: Double) -> Double {
        let n = bytesPerSlot.count
        let position = max(0, time) / Self.slot
        let slot = Int(position.rounded(.down))
        let (period, within) = slot.quotientAndRemainder(dividingBy: n)
        return Double(period) * Double(totalBytes) + Double(prefix[within])
            + (position - Double(slot)) * Double(bytesPerSlot[within])
    }

    /// The earliest time the link has carried `bytes` since the trace's start.
    func time(atCumulativeBytes bytes: Double) -> Double {
        guard bytes > 0 else { return 0 }
        let total = Double(totalBytes)
        var period = (bytes / total).rounded(.down)
        var rest = bytes - period * total
        if rest <= 0 {
            period -= 1
            rest += total
        }
        // The first slot whose end has carried `rest` (it carries bytes: the one before had not reached `rest`).
        var low = 0
        var high = bytesPerSlot.count - 1
        while low < high {
            let middle = (low + high) / 2
            if Double(prefix[middle + 1]) >= rest { high = middle } else { low = middle + 1 }
        }
        let inSlot = (rest - Double(prefix[low])) / Double(max(1, bytesPerSlot[low]))
        return (period * Double(bytesPerSlot.count) + Double(low) + inSlot) * Self.slot
    }

    /// Bytes of the trace's slots before each slot (`prefix[i]`: slots 0 ..< i), and in all of them.
    private var prefix: [Int] { cache.prefix }
    private var totalBytes: Int { cache.prefix[bytesPerSlot.count] }
}
