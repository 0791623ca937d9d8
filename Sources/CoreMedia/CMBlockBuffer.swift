import Foundation

/// A run of bytes that a sample buffer carries: compressed samples or linear PCM audio (Apple's `CMBlockBuffer`).
///
/// Linux design: a class rather than a Core Foundation type, holding one contiguous block it owns; the C-style
/// functions (`CMBlockBufferGetDataLength(_:)`, `CMBlockBufferCopyDataBytes(_:atOffset:dataLength:destination:)`,
/// `CMBlockBufferGetDataPointer(_:atOffset:lengthAtOffsetOut:totalLengthOut:dataPointerOut:)`) and the Swift members
/// Apple's overlay has (``dataLength``, ``isEmpty``, ``copyDataBytes(to:)``, ``dataBytes()``) are both here.
///
/// Thread safety: the bytes are written once, before the buffer is handed out, and only read afterwards (apart from
/// what a caller writes through the pointer `CMBlockBufferGetDataPointer` gives, which is the caller's to order).
public final class CMBlockBuffer: @unchecked Sendable {
    /// The bytes, owned; `length` of them, allocated in `init`, freed in `deinit`.
    private let storage: UnsafeMutableRawPointer
    /// The number of bytes in ``storage``.
    private let length: Int

    /// A buffer of `length` uninitialised bytes that `fill` writes before the buffer is shared.
    package init(length: Int, fill: (UnsafeMutableRawBufferPointer) -> Void) {
        precondition(length >= 0, "CMBlockBuffer: negative length")
        self.length = length
        storage = .allocate(byteCount: max(length, 1), alignment: 16)
        fill(UnsafeMutableRawBufferPointer(start: storage, count: length))
    }

    /// A buffer holding a copy of `bytes`.
    package convenience init(copying bytes: UnsafeRawBufferPointer) {
        self.init(length: bytes.count) { destination in
            if let source = bytes.baseAddress, bytes.count > 0 {
                destination.baseAddress!.copyMemory(from: source, byteCount: bytes.count)
            }
        }
    }

    /// Frees the bytes.
    deinit {
        storage.deallocate()
    }

    /// The number of bytes of data in the buffer.
    public var dataLength: Int { length }

    /// Whether the buffer holds no data.
    public var isEmpty: Bool { length == 0 }

    /// Copies the buffer's bytes, from the start, into `destination`, which must hold at least ``dataLength`` bytes
    /// (more are left untouched).
    ///
    /// - Throws: an `NSError` in `NSOSStatusErrorDomain` with `kCMBlockBufferBadLengthParameterErr` when
    ///   `destination` is too small.
    public func copyDataBytes(to destination: UnsafeMutableRawBufferPointer) throws {
        guard destination.count >= length else {
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(kCMBlockBufferBadLengthParameterErr))
        }
        if length > 0 { destination.baseAddress!.copyMemory(from: storage, byteCount: length) }
    }

    /// A copy of the buffer's bytes.
    public func dataBytes() throws -> Data {
        Data(bytes: storage, count: length)
    }

    /// Calls `body` with the bytes (valid only during the call), without copying them.
    package func withUnsafeBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try body(UnsafeRawBufferPointer(start: storage, count: length))
    }

    /// The start of the bytes, for the C-style accessors.
    fileprivate var baseAddress: UnsafeMutableRawPointer { storage }
}

/// Success, for the block-buffer functions (`kCMBlockBufferNoErr`).
public let kCMBlockBufferNoErr: OSStatus = 0
/// A structure could not be allocated.
public let kCMBlockBufferStructureAllocationFailedErr: OSStatus = -12700
/// A memory block could not be allocated.
public let kCMBlockBufferBlockAllocationFailedErr: OSStatus = -12701
/// A custom block source is invalid.
public let kCMBlockBufferBadCustomBlockSourceErr: OSStatus = -12702
/// An offset is out of range.
public let kCMBlockBufferBadOffsetParameterErr: OSStatus = -12703
/// A length is zero or out of range.
public let kCMBlockBufferBadLengthParameterErr: OSStatus = -12704
/// A required pointer is missing.
public let kCMBlockBufferBadPointerParameterErr: OSStatus = -12705
/// The buffer holds no data.
public let kCMBlockBufferEmptyBBufErr: OSStatus = -12706
/// A block of the buffer is not allocated.
public let kCMBlockBufferUnallocatedBlockErr: OSStatus = -12707
/// The destination has too little room.
public let kCMBlockBufferInsufficientSpaceErr: OSStatus = -12708

/// The number of bytes of data in the buffer, as Apple's `CMBlockBufferGetDataLength`.
public func CMBlockBufferGetDataLength(_ theBuffer: CMBlockBuffer) -> Int { theBuffer.dataLength }

/// Whether the buffer holds no data, as Apple's `CMBlockBufferIsEmpty`.
public func CMBlockBufferIsEmpty(_ theBuffer: CMBlockBuffer) -> Bool { theBuffer.isEmpty }

/// Copies `dataLength` bytes from `offsetToData` into `destination`, as Apple's `CMBlockBufferCopyDataBytes`.
///
/// - Returns: `kCMBlockBufferNoErr`; `kCMBlockBufferBadOffsetParameterErr` or `kCMBlockBufferBadLengthParameterErr`
///   when the range does not lie inside the buffer or `dataLength` is zero.
public func CMBlockBufferCopyDataBytes(
    _ theSourceBuffer: CMBlockBuffer, atOffset offsetToData: Int, dataLength: Int,
    destination: UnsafeMutableRawPointer
) -> OSStatus {
    guard offsetToData >= 0, offsetToData <= theSourceBuffer.dataLength else {
        return kCMBlockBufferBadOffsetParameterErr
    }
    guard dataLength > 0, dataLength <= theSourceBuffer.dataLength - offsetToData else {
        return kCMBlockBufferBadLengthParameterErr
    }
    destination.copyMemory(from: theSourceBuffer.baseAddress + offsetToData, byteCount: dataLength)
    return kCMBlockBufferNoErr
}

/// A pointer to the bytes from `offset` on, as Apple's `CMBlockBufferGetDataPointer`: the buffer is one contiguous
/// block, so the length at the offset is the rest of the buffer.
///
/// - Returns: `kCMBlockBufferNoErr`; `kCMBlockBufferBadOffsetParameterErr` when `offset` is not inside the buffer.
public func CMBlockBufferGetDataPointer(
    _ theBuffer: CMBlockBuffer, atOffset offset: Int, lengthAtOffsetOut: UnsafeMutablePointer<Int>?,
    totalLengthOut: UnsafeMutablePointer<Int>?, dataPointerOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> OSStatus {
    guard offset >= 0, offset < theBuffer.dataLength else {
        dataPointerOut?.pointee = nil
        return kCMBlockBufferBadOffsetParameterErr
    }
    lengthAtOffsetOut?.pointee = theBuffer.dataLength - offset
    totalLengthOut?.pointee = theBuffer.dataLength
    dataPointerOut?.pointee = (theBuffer.baseAddress + offset).assumingMemoryBound(to: CChar.self)
    return kCMBlockBufferNoErr
}

/// Whether `length` bytes from `offset` lie in one contiguous block (always, when they lie inside the buffer), as
/// Apple's `CMBlockBufferIsRangeContiguous`; a `length` of 0 means to the end.
public func CMBlockBufferIsRangeContiguous(_ theBuffer: CMBlockBuffer, atOffset offset: Int, length: Int) -> Bool {
    let end = length == 0 ? theBuffer.dataLength : offset + length
    return offset >= 0 && offset <= end && end <= theBuffer.dataLength
}
