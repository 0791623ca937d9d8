// CoreVideo: Apple's pixel-buffer value layer (CVPixelBuffer, CVPixelBufferPool, attachments) in pure Swift.
//
// Apple's CoreVideo brings the CoreGraphics geometry types along (`CVImageBufferGetCleanRect` returns a
// `CGRect`), so this module re-exports CoreGraphics, which in turn re-exports Foundation.
//
// Names, signatures and raw values follow Apple's Swift interface; each symbol's documentation says
// where the Linux implementation differs.
@_exported import CoreGraphics

/// Traps with a message naming the API that was misused (DESIGN.md, style rule 4).
///
/// Used only for programmer errors in `package` API, never for input data.
func coreVideoAPIViolation(_ message: String, function: StaticString = #function) -> Never {
    preconditionFailure("CoreVideo API violation in \(function): \(message)")
}
