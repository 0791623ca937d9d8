// Buffer attachments: key-value metadata carried by a buffer (CVBuffer.h).
//
// Values are stored as objects (`value as AnyObject`): Swift strings come back as `NSString`, numbers as
// `NSNumber`, dictionaries as `NSDictionary`, so `as? String`, `as? Int` and `as? [String: Any]` read them back.
// All functions are thread-safe: each reads or changes a buffer's attachments in one step under the buffer's lock
// (`CVBuffer.withAttachments`). Values a call replaces or removes are released after the lock is dropped, so a
// value's `deinit` may itself use attachment functions.

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
    let replaced = buffer.withAttachments { $0.set(key, object, mode: attachmentMode) }
    withExtendedLifetime(replaced) {}  // released here, outside the lock
}

/// Returns an attachment, or `nil`, as Apple's `CVBufferCopyAttachment`; writes its mode to `attachmentMode`
/// when given and the attachment exists.
public func CVBufferCopyAttachment(
    _ buffer: CVBuffer,
    _ key: CFString,
    _ attachmentMode: UnsafeMutablePointer<CVAttachmentMode>?
) -> CFTypeRef? {
    guard let (value, mode) = buffer.withAttachments({ $0.value(forKey: key) }) else { return nil }
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
    buffer.withAttachments { $0.value(forKey: key) != nil }
}

/// Removes an attachment in whichever mode it is, as Apple's `CVBufferRemoveAttachment`.
public func CVBufferRemoveAttachment(_ buffer: CVBuffer, _ key: CFString) {
    let removed = buffer.withAttachments { $0.remove(key) }
    withExtendedLifetime(removed) {}  // released here, outside the lock
}

/// Removes every attachment, as Apple's `CVBufferRemoveAllAttachments`.
public func CVBufferRemoveAllAttachments(_ buffer: CVBuffer) {
    let removed = buffer.withAttachments { store in
        let removed = store
        store = CVBufferAttachmentStore()
        return removed
    }
    withExtendedLifetime(removed) {}  // released here, outside the lock
}

/// Sets every entry of `theAttachments` as an attachment in `attachmentMode`, as Apple's
/// `CVBufferSetAttachments`. Entries whose key is not a string are ignored.
public func CVBufferSetAttachments(
    _ buffer: CVBuffer,
    _ theAttachments: CFDictionary,
    _ attachmentMode: CVAttachmentMode
) {
    let entries = (PixelBufferAttributes.stringKeyed(theAttachments) ?? [:]).mapValues { SendableObject($0) }
    set(entries, mode: attachmentMode, on: buffer)
}

/// A dictionary of the attachments in `attachmentMode`, or `nil` when there are none, as Apple's
/// `CVBufferCopyAttachments`. Convert with `as? [String: Any]`.
public func CVBufferCopyAttachments(_ buffer: CVBuffer, _ attachmentMode: CVAttachmentMode) -> CFDictionary? {
    let entries = buffer.withAttachments { $0.attachments(mode: attachmentMode) }
    guard !entries.isEmpty else { return nil }
    return NSDictionary(dictionary: entries.mapValues { $0.object })
}

/// Copies the source buffer's `.shouldPropagate` attachments to the destination (replacing same-keyed ones), as
/// Apple's `CVBufferPropagateAttachments`.
public func CVBufferPropagateAttachments(_ sourceBuffer: CVBuffer, _ destinationBuffer: CVBuffer) {
    // Onto itself it changes nothing, and a read then a write (two lock acquisitions) could undo a concurrent set.
    guard sourceBuffer !== destinationBuffer else { return }
    // One buffer's lock at a time: the two buffers may share a lock stripe, and locks do not nest.
    let entries = sourceBuffer.withAttachments { $0.propagated }
    set(entries, mode: .shouldPropagate, on: destinationBuffer)
}

/// Sets every entry in one step under the buffer's lock; the values replaced are released after it.
private func set(_ entries: [String: SendableObject], mode: CVAttachmentMode, on buffer: CVBuffer) {
    guard !entries.isEmpty else { return }
    var replaced: [CVBufferAttachmentStore.Displaced] = []
    replaced.reserveCapacity(entries.count)  // allocated before locking
    buffer.withAttachments { store in
        for (key, value) in entries {
            replaced.append(store.set(key, value, mode: mode))
        }
    }
    withExtendedLifetime(replaced) {}  // released here, outside the lock
}
