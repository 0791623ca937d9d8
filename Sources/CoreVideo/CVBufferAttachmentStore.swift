// The attachments of one buffer, in its two propagation modes.

/// A buffer's attachments. A key lives in at most one of the two dictionaries, as on Apple's systems: setting it
/// in one mode removes it from the other. A value type: a buffer keeps its store under its lock (see
/// `CVBuffer.withAttachments(_:)`). Package API so that wrapping initialisers can start a buffer with its
/// attachments (e.g. a decoded frame's colour description).
///
/// The mutating methods hand back the value they replace or remove, so that a caller holding a lock can drop it
/// after unlocking (dropping the last reference to a value runs its `deinit`).
package struct CVBufferAttachmentStore: Sendable {
    /// Attachments copied by `CVBufferPropagateAttachments`.
    package var propagated: [String: SendableObject] = [:]
    /// Attachments that stay with this buffer.
    package var nonPropagated: [String: SendableObject] = [:]

    /// No attachments.
    package init() {}

    /// Attachments given as Swift dictionaries, e.g.
    /// `[kCVImageBufferColorPrimariesKey: kCVImageBufferColorPrimaries_ITU_R_709_2]`.
    package init(propagated: [String: Any], nonPropagated: [String: Any] = [:]) {
        self.propagated = propagated.mapValues { SendableObject($0) }
        self.nonPropagated = nonPropagated.mapValues { SendableObject($0) }
    }

    /// The values a mutation took out of a store, per mode, for the caller to drop (see the type's summary).
    package typealias Displaced = (propagated: SendableObject?, nonPropagated: SendableObject?)

    /// Sets `key` to `value` in `mode`, removing it from the other mode; returns the values it had.
    @discardableResult
    package mutating func set(_ key: String, _ value: SendableObject, mode: CVAttachmentMode) -> Displaced {
        switch mode {
        case .shouldPropagate:
            let other = nonPropagated.removeValue(forKey: key)
            return (propagated.updateValue(value, forKey: key), other)
        case .shouldNotPropagate:
            let other = propagated.removeValue(forKey: key)
            return (other, nonPropagated.updateValue(value, forKey: key))
        }
    }

    /// The value of `key` and the mode it is in, or `nil`.
    package func value(forKey key: String) -> (value: SendableObject, mode: CVAttachmentMode)? {
        if let value = propagated[key] {
            return (value, .shouldPropagate)
        }
        if let value = nonPropagated[key] {
            return (value, .shouldNotPropagate)
        }
        return nil
    }

    /// Removes `key` from either mode; returns the values it had.
    @discardableResult
    package mutating func remove(_ key: String) -> Displaced {
        (propagated.removeValue(forKey: key), nonPropagated.removeValue(forKey: key))
    }

    /// The attachments in `mode`.
    package func attachments(mode: CVAttachmentMode) -> [String: SendableObject] {
        mode == .shouldPropagate ? propagated : nonPropagated
    }
}
