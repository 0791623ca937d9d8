import Foundation
import PlaybackEngine

// Outputs of an item (Apple's `AVPlayerItem.outputs`, `add(_:)`, `remove(_:)`).
extension AVPlayerItem {
    /// The outputs added to the item, in the order they were added, as Apple's `outputs`.
    public var outputs: [AVPlayerItemOutput] { read { $0.outputs } }

    /// Adds an output, as Apple's `add(_:)`. It receives media from the moment the item plays in a player (at
    /// once if it already does). Adding it twice does nothing; an output added to another item traps (Apple
    /// raises an exception).
    ///
    /// Differs from Apple: an output added to an item that is already showing a picture gets the next picture the
    /// player presents, not the one on display.
    public func add(_ output: AVPlayerItemOutput) {
        output.join(self)
        let added: Bool = mutate { s in
            if s.outputs.contains(where: { $0 === output }) { return false }
            s.outputs.append(output)
            return true
        }
        guard added else { return }
        if let (session, engine) = sessionAndEngine() {
            output.rebind(to: AVPlayerItemOutput.Binding(session: session, engine: engine))
        }
    }

    /// Removes an output, as Apple's `remove(_:)`; it stops receiving media. Removing one not added does nothing.
    public func remove(_ output: AVPlayerItemOutput) {
        let removed: Bool = mutate { s in
            guard s.outputs.contains(where: { $0 === output }) else { return false }
            s.outputs.removeAll { $0 === output }
            return true
        }
        if removed { output.leave() }
    }

    /// The item joined a player (`attach(to:)`): its outputs take media from `session` on `engine`.
    func outputsAttached(session: ItemSession, engine: PlayerEngine?) {
        let binding = engine.map { AVPlayerItemOutput.Binding(session: session, engine: $0) }
        for output in outputs { output.rebind(to: binding) }
    }

    /// The item left its player (`detach()`): its outputs take media from nothing.
    func outputsDetached() {
        for output in outputs { output.rebind(to: nil) }
    }
}
