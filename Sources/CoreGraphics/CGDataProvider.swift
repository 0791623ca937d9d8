/// A source of an image's bytes, as Apple's `CGDataProvider`: here always a block of memory.
///
/// Differs from Apple: only data providers over memory exist (`init?(data:)`); no callbacks, no files.
public final class CGDataProvider: @unchecked Sendable {
    // @unchecked: `bytes` is immutable; NSData is not marked Sendable on Linux, so `data` copies on access.
    /// The bytes.
    let bytes: Data

    /// A provider of `data`'s bytes (copied), as Apple's `init?(data:)`.
    public init?(data: CFData) {
        bytes = Data(referencing: data)
    }

    /// A provider of `bytes`.
    init(bytes: Data) {
        self.bytes = bytes
    }

    /// The provider's bytes (Apple's `var data: CFData?`): a copy the caller owns.
    public var data: CFData? { NSData(data: bytes) }
}
