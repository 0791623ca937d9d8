import Foundation

/// The loading status of one key of an asset, track or metadata item (Apple's raw values).
public enum AVKeyValueStatus: Int, Sendable {
    /// The value has not been asked for.
    case unknown = 0
    /// The value is being loaded.
    case loading = 1
    /// The value is loaded.
    case loaded = 2
    /// Loading failed; `statusOfValue(forKey:error:)` gives the error.
    case failed = 3
    /// Loading was cancelled (`cancelLoading()`).
    case cancelled = 4
}

/// Asynchronous, key-based loading of property values (Apple's older loading style), adopted by
/// `AVAsset`, `AVAssetTrack` and `AVMetadataItem`.
public protocol AVAsynchronousKeyValueLoading {
    /// The loading status of `key`, without blocking. On failure `outError` receives the error.
    func statusOfValue(forKey key: String, error outError: NSErrorPointer) -> AVKeyValueStatus

    /// Loads the values of `keys` and calls `handler` exactly once: synchronously when every key is
    /// already loaded (or failed at once), otherwise later on a background queue.
    func loadValuesAsynchronously(forKeys keys: [String], completionHandler handler: (@Sendable () -> Void)?)
}

extension AVAsynchronousKeyValueLoading {
    /// Starts loading the values of the keys, without a completion handler.
    public func loadValuesAsynchronously(forKeys keys: [String]) {
        loadValuesAsynchronously(forKeys: keys, completionHandler: nil)
    }

    /// The `async` form of ``loadValuesAsynchronously(forKeys:completionHandler:)``.
    public func loadValues(forKeys keys: [String]) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            loadValuesAsynchronously(forKeys: keys) { c.resume() }
        }
    }
}

/// What the framework's loadable types do under `load(_:)`: wait until the values behind some
/// keys are known. Internal; types whose values are known at creation simply return.
protocol AsyncLoadingHost {
    func awaitValues(forKeys keys: [String]) async throws
    func loadingStatus(forKey key: String) -> (AVKeyValueStatus, (any Error)?)
}

/// A type-erased asynchronously loadable property (Apple's `AVAnyAsyncProperty`).
open class AVAnyAsyncProperty: @unchecked Sendable {
    /// The key-value-loading key behind the property ("duration", "tracks", …).
    let key: String
    init(key: String) { self.key = key }
}

/// A loadable property of `Root`, whatever its value type (Apple's `AVPartialAsyncProperty`).
open class AVPartialAsyncProperty<Root>: AVAnyAsyncProperty, @unchecked Sendable {}

/// A property of `Root` whose `Value` is loaded asynchronously: `try await asset.load(.duration)`.
///
/// The framework declares the properties as static members constrained on `Root`
/// (`AVAsyncProperty<Root, CMTime>.duration where Root: AVAsset`), as Apple does.
public final class AVAsyncProperty<Root, Value>: AVPartialAsyncProperty<Root>, @unchecked Sendable {
    /// Where a property's loading stands.
    public enum Status {
        /// The value has not been asked for.
        case notYetLoaded
        /// The value is being loaded.
        case loading
        /// The value is loaded.
        case loaded(Value)
        /// Loading failed with the error.
        case failed(any Error)
    }

    let read: (Root) throws -> Value

    init(key: String, read: @escaping (Root) throws -> Value) {
        self.read = read
        super.init(key: key)
    }
}

extension AVAsynchronousKeyValueLoading {
    private func awaitKeys(_ keys: [String]) async throws {
        if let host = self as? any AsyncLoadingHost { try await host.awaitValues(forKeys: keys) }
    }

    /// Loads one property: `let duration = try await asset.load(.duration)`.
    public func load<A>(_ a: AVAsyncProperty<Self, A>) async throws -> A {
        try await awaitKeys([a.key])
        return try a.read(self)
    }

    /// Loads two properties at once (one probe) and returns their values in order.
    public func load<A, B>(_ a: AVAsyncProperty<Self, A>, _ b: AVAsyncProperty<Self, B>) async throws -> (A, B) {
        try await awaitKeys([a.key, b.key])
        return (try a.read(self), try b.read(self))
    }

    /// Loads three properties at once (one probe) and returns their values in order.
    public func load<A, B, C>(
        _ a: AVAsyncProperty<Self, A>, _ b: AVAsyncProperty<Self, B>, _ c: AVAsyncProperty<Self, C>
    ) async throws -> (A, B, C) {
        try await awaitKeys([a.key, b.key, c.key])
        return (try a.read(self), try b.read(self), try c.read(self))
    }

    /// Loads four properties at once (one probe) and returns their values in order.
    public func load<A, B, C, D>(
        _ a: AVAsyncProperty<Self, A>, _ b: AVAsyncProperty<Self, B>, _ c: AVAsyncProperty<Self, C>,
        _ d: AVAsyncProperty<Self, D>
    ) async throws -> (A, B, C, D) {
        try await awaitKeys([a.key, b.key, c.key, d.key])
        return (try a.read(self), try b.read(self), try c.read(self), try d.read(self))
    }

    /// Loads five properties at once (one probe) and returns their values in order.
    public func load<A, B, C, D, E>(
        _ a: AVAsyncProperty<Self, A>, _ b: AVAsyncProperty<Self, B>, _ c: AVAsyncProperty<Self, C>,
        _ d: AVAsyncProperty<Self, D>, _ e: AVAsyncProperty<Self, E>
    ) async throws -> (A, B, C, D, E) {
        try await awaitKeys([a.key, b.key, c.key, d.key, e.key])
        return (try a.read(self), try b.read(self), try c.read(self), try d.read(self), try e.read(self))
    }

    /// Loads six properties at once (one probe) and returns their values in order.
    public func load<A, B, C, D, E, F>(
        _ a: AVAsyncProperty<Self, A>, _ b: AVAsyncProperty<Self, B>, _ c: AVAsyncProperty<Self, C>,
        _ d: AVAsyncProperty<Self, D>, _ e: AVAsyncProperty<Self, E>, _ f: AVAsyncProperty<Self, F>
    ) async throws -> (A, B, C, D, E, F) {
        try await awaitKeys([a.key, b.key, c.key, d.key, e.key, f.key])
        return (
            try a.read(self), try b.read(self), try c.read(self), try d.read(self), try e.read(self), try f.read(self)
        )
    }

    /// Loads seven properties at once (one probe) and returns their values in order.
    public func load<A, B, C, D, E, F, G>(
        _ a: AVAsyncProperty<Self, A>, _ b: AVAsyncProperty<Self, B>, _ c: AVAsyncProperty<Self, C>,
        _ d: AVAsyncProperty<Self, D>, _ e: AVAsyncProperty<Self, E>, _ f: AVAsyncProperty<Self, F>,
        _ g: AVAsyncProperty<Self, G>
    ) async throws -> (A, B, C, D, E, F, G) {
        try await awaitKeys([a.key, b.key, c.key, d.key, e.key, f.key, g.key])
        return (
            try a.read(self), try b.read(self), try c.read(self), try d.read(self), try e.read(self), try f.read(self),
            try g.read(self)
        )
    }

    /// Loads eight properties at once (one probe) and returns their values in order.
    public func load<A, B, C, D, E, F, G, H>(
        _ a: AVAsyncProperty<Self, A>, _ b: AVAsyncProperty<Self, B>, _ c: AVAsyncProperty<Self, C>,
        _ d: AVAsyncProperty<Self, D>, _ e: AVAsyncProperty<Self, E>, _ f: AVAsyncProperty<Self, F>,
        _ g: AVAsyncProperty<Self, G>, _ h: AVAsyncProperty<Self, H>
    ) async throws -> (A, B, C, D, E, F, G, H) {
        try await awaitKeys([a.key, b.key, c.key, d.key, e.key, f.key, g.key, h.key])
        return (
            try a.read(self), try b.read(self), try c.read(self), try d.read(self), try e.read(self), try f.read(self),
            try g.read(self), try h.read(self)
        )
    }

    /// Where loading of `property` stands, without blocking.
    public func status<T>(of property: AVAsyncProperty<Self, T>) -> AVAsyncProperty<Self, T>.Status {
        guard let host = self as? any AsyncLoadingHost else {
            do { return .loaded(try property.read(self)) } catch { return .failed(error) }
        }
        let (status, error) = host.loadingStatus(forKey: property.key)
        switch status {
        case .unknown: return .notYetLoaded
        case .loading: return .loading
        case .loaded:
            do { return .loaded(try property.read(self)) } catch { return .failed(error) }
        case .failed, .cancelled: return .failed(error ?? AVError(.unknown))
        }
    }
}
