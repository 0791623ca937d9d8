import Foundation

/// The best schedule in hindsight: the variant of each segment that maximises the linear QoE when the trace is known
/// in advance, under the same ladder and buffer rules (``ABRSimulation``) — the limit no online policy can beat.
///
/// Dynamic programming over segments: after each segment the states reached (the variant of the last segment, the
/// time, the buffer) are merged when their variant is the same and their time and buffer fall in the same
/// ``resolution``-second cells, keeping the one with the best QoE so far (the future depends only on the variant,
/// time and buffer; the QoE is additive). The merge makes it a near-optimal bound: within what a shift of a
/// fraction of ``resolution`` in time can change. Ties (schedules of equal QoE are common: the same rungs in another
/// order) go to the earlier time, then the deeper buffer — the state whose future is at least as good — then the
/// schedule first in order: the states were a dictionary's, whose order changes from run to run, and the 3G-like
/// trace's bound moved between 30.33 and 30.39. A value: any thread.
package struct ABROracle: Sendable {
    /// Seconds per cell of time and buffer when states are merged.
    package static let resolution = 0.1

    package var simulation: ABRSimulation

    package init(_ simulation: ABRSimulation) {
        self.simulation = simulation
    }

    private struct Key: Hashable {
        var variant: Int
        var time: Int
        var buffer: Int
    }

    private struct Node {
        var state: ABRSimulation.State
        var schedule: [Int]
    }

    /// Whether `b` is the better of two states: the higher QoE; on a tie the earlier time, then the deeper buffer,
    /// then the schedule first in lexicographic order (a total order: the result does not depend on the order the
    /// states were met in).
    private static func precedes(_ a: Node, _ b: Node) -> Bool {
        if a.state.qoe != b.state.qoe { return a.state.qoe < b.state.qoe }
        if a.state.time != b.state.time { return a.state.time > b.state.time }
        if a.state.buffer != b.state.buffer { return a.state.buffer < b.state.buffer }
        return b.schedule.lexicographicallyPrecedes(a.schedule)
    }

    /// The best schedule and what it plays like.
    package func best() -> ABRRunMetrics {
        let sim = simulation
        let count = sim.ladder.segmentCount
        let variants = sim.ladder.bitRates.indices
        var layer: [Node] = [Node(state: ABRSimulation.State(), schedule: [])]
        for index in 0..<count {
            var next: [Key: Node] = [:]
            for node in layer {
                let asked = sim.request(after: node.state)
                for variant in variants {
                    let state = sim.fetch(index, from: variant, at: asked).0
                    let key = Key(
                        variant: variant, time: Int((state.time / Self.resolution).rounded()),
                        buffer: Int((state.buffer / Self.resolution).rounded()))
                    let candidate = Node(state: state, schedule: node.schedule + [variant])
                    if let known = next[key], !Self.precedes(known, candidate) { continue }
                    next[key] = candidate
                }
            }
            layer = Array(next.values)
        }
        guard let best = layer.max(by: Self.precedes) else {
            return sim.play(schedule: [])
        }
        return sim.play(schedule: best.schedule)
    }
}
