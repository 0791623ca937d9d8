// Attachment propagation modes (CVBuffer.h).

/// Whether an attachment is copied along when a buffer's attachments are propagated to another buffer
/// (`CVBufferPropagateAttachments`), as Apple's `CVAttachmentMode`.
public enum CVAttachmentMode: UInt32, Sendable {
    /// The attachment stays with this buffer only (`kCVAttachmentMode_ShouldNotPropagate`, 0).
    case shouldNotPropagate = 0
    /// The attachment is copied to buffers derived from this one (`kCVAttachmentMode_ShouldPropagate`, 1).
    case shouldPropagate = 1
}
