// Basic scalar types shared by CoreVideo's API.

/// A four-character code, as in Apple's MacTypes (`UInt32`, big-endian character order: `'BGRA'` is
/// `0x4247_5241`).
///
/// Supplied here because swift-corelibs-foundation does not declare it.
public typealias FourCharCode = UInt32

/// An operating-system type code, as in Apple's MacTypes; pixel formats are `OSType`s.
///
/// Supplied here because swift-corelibs-foundation does not declare it.
public typealias OSType = FourCharCode

/// Option flags passed to CoreVideo functions, as Apple's `CVOptionFlags` (`UInt64`).
public typealias CVOptionFlags = UInt64
