import Foundation
import OAVFLocking
import XCTest

@testable import AVFoundation

/// The cues a legible output's delegate received, in order: texts and item times (an empty array clears). Set it as
/// the delegate with its own ``queue``.
final class LegibleCueLog: NSObject, AVPlayerItemLegibleOutputPushDelegate, @unchecked Sendable {
    let queue: DispatchQueue
    private let lock = ConditionLock()
    private var received: [(texts: [String], time: Double)] = []

    init(label: String = "legible-cue-log") {
        queue = DispatchQueue(label: label)
    }

    /// Everything delivered so far (after the deliveries already queued).
    var deliveries: [(texts: [String], time: Double)] {
        queue.sync {}
        return lock.withLock { received }
    }

    /// The texts delivered so far.
    var texts: [[String]] { deliveries.map(\.texts) }

    func legibleOutput(
        _ output: AVPlayerItemLegibleOutput, didOutputAttributedStrings strings: [NSAttributedString],
        nativeSampleBuffers nativeSamples: [Any], forItemTime itemTime: CMTime
    ) {
        lock.withLock { received.append((strings.map(\.string), itemTime.seconds)) }
    }
}
