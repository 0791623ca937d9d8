import Foundation

// How the model classes publish changes: every observable getter goes through `access`, every
// change through `set`, which wraps the mutation in the hub's will/did-change notifications (KVO
// `observe(_:options:)` with `.prior`/`.old`/`.new`, Swift Observation). Never called with the
// object's state lock held: the hub reads old and new values through the public getters.

extension AVPlayerItem: AVKeyValueObservable {
    func access<T>(_ keyPath: KeyPath<AVPlayerItem, T>, _ body: (State) -> T) -> T {
        observationHub.access(self, keyPath: keyPath)
        return read(body)
    }

    @discardableResult
    func set<T>(_ keyPath: PartialKeyPath<AVPlayerItem>, _ body: (inout State) -> T) -> T {
        set([keyPath], body)
    }

    @discardableResult
    func set<T>(_ keyPaths: [PartialKeyPath<AVPlayerItem>], _ body: (inout State) -> T) -> T {
        observationHub.withMutation(of: self, keyPaths: keyPaths) { mutate(body) }
    }
}

extension AVPlayer: AVKeyValueObservable {
    func access<T>(_ keyPath: KeyPath<AVPlayer, T>, _ body: (State) -> T) -> T {
        observationHub.access(self, keyPath: keyPath)
        return read(body)
    }

    @discardableResult
    func set<T>(_ keyPath: PartialKeyPath<AVPlayer>, _ body: (inout State) -> T) -> T {
        set([keyPath], body)
    }

    @discardableResult
    func set<T>(_ keyPaths: [PartialKeyPath<AVPlayer>], _ body: (inout State) -> T) -> T {
        observationHub.withMutation(of: self, keyPaths: keyPaths) { mutate(body) }
    }
}

extension AVPlayerLooper: AVKeyValueObservable {}
