// Buffer attachments: key-value metadata carried by a buffer (CVBuffer.h).
//
// Values are stored as objects (`value as AnyObject`): Swift strings come back as `NSString`, numbers as
// `NSNumber`, dictionaries as `NSDictionary`, so `as? String`, `as? Int` and `as? [String: Any]` read them back.
// All functions are thread-safe.

/// Sets or replaces an attachment, as Apple's `CVBufferSetAttachment`. A key is in one mode at a time: setting it
/// in one mode removes it from the other.
///
/// Differs from Apple: `value` is `Any` rather than `CFTypeRef`, because the Linux key and value constants are
/// Swift `String`s, which are not class instances; any value Apple accepts is accepted.
public func CVBufferSetAttachment(
    _ buffer: CVBuffer,
    _ key: CFString,
    _ value: Any,
    _ attachmentMode: CVAttachmentMode
) {
    let object = SendableObject(value)
    buffer.attachmentStore.withLock { $0.set(key, object, mode: attachmentMode) }
}

/// Returns an attachment, or `nil`, as Apple's `CVBufferCopyAttachment`; writes its mode to `attachmentMode`
/// when given and the attachment exists.
public func CVBufferCopyAttachment(
    _ buffer: CVBuffer,
    _ key: CFString,
    _ attachmentMode: UnsafeMutablePointer<CVAttachmentMode>?
) -> CFTypeRef? {
    guard let (value, mode) = buffer.attachmentStore.withLock({ $0.value(forKey: key) }) else { return nil }
    attachmentMode?.pointee = mode
    return value.object
}

/// Returns an attachment without retaining it, as Apple's `CVBufferGetAttachment` (deprecated by Apple in favour of
/// `CVBufferCopyAttachment`). The value stays valid while the buffer holds it; call `takeUnretainedValue()`.
public func CVBufferGetAttachment(
    _ buffer: CVBuffer,
    _ key: CFString,
    _ attachmentMode: UnsafeMutablePointer<CVAttachmentMode>?
) -> Unmanaged<CFTypeRef>? {
    CVBufferCopyAttachment(buffer, key, attachmentMode).map { Unmanaged.passUnretained($0) }
}

/// Whether the buffer has an attachment for `key` in either mode, as Apple's `CVBufferHasAttachment`.
public func CVBufferHasAttachment(_ buffer: CVBuffer, _ key: CFString) -> Bool {
    buffer.attachmentStore.withLock { $0.value(forKey: key) != nil }
}

/// Removes an attachment in whichever mode it is, as Apple's `CVBufferRemoveAttachment`.
public func CVBufferRemoveAttachment(_ buffer: CVBuffer, _ key: CFString) {
    buffer.attachmentStore.withLock { $0.remove(key) }
}

/// Removes every attachment, as Apple's `CVBufferRemoveAllAttachments`.
public func CVBufferRemoveAllAttachments(_ buffer: CVBuffer) {
    buffer.attachmentStore.withLock { $0 = CVBufferAttachmentStore() }
}

/// Sets every entry of `theAttachments` as an attachment in `attachmentMode`, as Apple's
/// `CVBufferSetAttachments`. Entries whose key is not a string are ignored.
public func CVBufferSetAttachments(
    _ buffer: CVBuffer,
    _ theAttachments: CFDictionary,
    _ attachmentMode: CVAttachmentMode
) {
    let entries = (PixelBufferAttributes.stringKeyed(theAttachments) ?? [:]).mapValues { SendableObject($0) }
    buffer.attachmentStore.withLock { store in
        for (key, value) in entries {
            store.set(key, value, mode: attachmentMode)
        }
    }
}

/// A dictionary of the attachments in `attachmentMode`, or `nil` when there are none, as Apple's
/// `CVBufferCopyAttachments`. Convert with `as? [String: Any]`.
public func CVBufferCopyAttachments(_ buffer: CVBuffer, _ attachmentMode: CVAttachmentMode) -> CFDictionary? {
    let entries = buffer.attachmentStore.withLock { $0.attachments(mode: attachmentMode) }
    guard !entries.isEmpty else { return nil }
    return NSDictionary(dictionary: entries.mapValues { $0.object })
}

/// Copies the source buffer's `.shouldPropagate` attachments to the destination (replacing same-keyed ones), as
/// Apple's `CVBufferPropagateAttachments`.
public func CVBufferPropagateAttachments(_ sourceBuffer: CVBuffer, _ destinationBuffer: CVBuffer) {
    let entries = sourceBuffer.attachmentStore.withLock { $0.propagated }
    destinationBuffer.attachmentStore.withLock { store in
        for (key, value) in entries {
            store.set(key, value, mode: .shouldPropagate)
        }
    }
}
