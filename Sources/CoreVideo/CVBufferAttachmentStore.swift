// The attachments of one buffer, in its two propagation modes.

/// A buffer's attachments. A key lives in at most one of the two dictionaries, as on Apple's systems: setting it
/// in one mode removes it from the other. Guarded by the owning buffer's mutex. Package API so that wrapping
/// initialisers can start a buffer with its attachments (e.g. a decoded frame's colour description).
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

    package mutating func set(_ key: String, _ value: SendableObject, mode: CVAttachmentMode) {
        switch mode {
        case .shouldPropagate:
            nonPropagated[key] = nil
            propagated[key] = value
        case .shouldNotPropagate:
            propagated[key] = nil
            nonPropagated[key] = value
        }
    }

    package func value(forKey key: String) -> (value: SendableObject, mode: CVAttachmentMode)? {
        if let value = propagated[key] {
            return (value, .shouldPropagate)
        }
        if let value = nonPropagated[key] {
            return (value, .shouldNotPropagate)
        }
        return nil
    }

    package mutating func remove(_ key: String) {
        propagated[key] = nil
        nonPropagated[key] = nil
    }

    package func attachments(mode: CVAttachmentMode) -> [String: SendableObject] {
        mode == .shouldPropagate ? propagated : nonPropagated
    }
}
