// CoreVideo result codes with Apple's values (CVReturn.h).

/// A CoreVideo result code; `kCVReturnSuccess` (0) or one of the negative error codes below.
public typealias CVReturn = Int32

/// The operation completed successfully.
public let kCVReturnSuccess: CVReturn = 0
/// Placeholder marking the beginning of CoreVideo's result codes; not returned by any function.
public let kCVReturnFirst: CVReturn = -6660
/// An otherwise undefined error occurred.
public let kCVReturnError: CVReturn = -6660
/// An argument is invalid: out of range or of the wrong type.
public let kCVReturnInvalidArgument: CVReturn = -6661
/// Memory allocation for a buffer or pool failed.
public let kCVReturnAllocationFailed: CVReturn = -6662
/// The operation is not supported.
public let kCVReturnUnsupported: CVReturn = -6663
/// The display specified is invalid (display links).
public let kCVReturnInvalidDisplay: CVReturn = -6670
/// The display link is already running.
public let kCVReturnDisplayLinkAlreadyRunning: CVReturn = -6671
/// The display link is not running.
public let kCVReturnDisplayLinkNotRunning: CVReturn = -6672
/// The display link has no output callback.
public let kCVReturnDisplayLinkCallbacksNotSet: CVReturn = -6673
/// The buffer does not support the specified pixel format.
public let kCVReturnInvalidPixelFormat: CVReturn = -6680
/// The buffer cannot support the requested size (usually too big).
public let kCVReturnInvalidSize: CVReturn = -6681
/// A buffer cannot be created with the specified attributes.
public let kCVReturnInvalidPixelBufferAttributes: CVReturn = -6682
/// The pixel buffer is not compatible with OpenGL.
public let kCVReturnPixelBufferNotOpenGLCompatible: CVReturn = -6683
/// The pixel buffer is not compatible with Metal.
public let kCVReturnPixelBufferNotMetalCompatible: CVReturn = -6684
/// Allocating another buffer would exceed the pool's allocation threshold
/// (`kCVPixelBufferPoolAllocationThresholdKey`).
public let kCVReturnWouldExceedAllocationThreshold: CVReturn = -6689
/// The pool failed to allocate a buffer.
public let kCVReturnPoolAllocationFailed: CVReturn = -6690
/// A pool cannot be created with the specified attributes.
public let kCVReturnInvalidPoolAttributes: CVReturn = -6691
/// A scan hasn't completed; try again.
public let kCVReturnRetry: CVReturn = -6692
/// Placeholder marking the end of CoreVideo's result codes; not returned by any function.
public let kCVReturnLast: CVReturn = -6699

/// A CoreVideo failure carried through `throws` inside the package; `code` is what the public C-style
/// functions return.
package struct CoreVideoError: Error, Equatable, Sendable {
    /// The `CVReturn` the public API reports for this failure.
    package let code: CVReturn

    package init(_ code: CVReturn) {
        self.code = code
    }

    package static let invalidArgument = CoreVideoError(kCVReturnInvalidArgument)
    package static let invalidPixelFormat = CoreVideoError(kCVReturnInvalidPixelFormat)
    package static let invalidSize = CoreVideoError(kCVReturnInvalidSize)
    package static let invalidPixelBufferAttributes = CoreVideoError(kCVReturnInvalidPixelBufferAttributes)
    package static let allocationFailed = CoreVideoError(kCVReturnAllocationFailed)
    package static let wouldExceedAllocationThreshold = CoreVideoError(kCVReturnWouldExceedAllocationThreshold)
    package static let invalidPoolAttributes = CoreVideoError(kCVReturnInvalidPoolAttributes)
}
