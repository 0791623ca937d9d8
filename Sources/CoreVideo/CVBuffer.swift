// The CoreVideo buffer object: Apple's CVBuffer / CVImageBuffer / CVPixelBuffer, which Swift sees as one class.
import Foundation
import OAVFLocking

/// An image buffer, as Apple's `CVImageBuffer` (a typealias of `CVBuffer`).
public typealias CVImageBuffer = CVBuffer

/// A pixel buffer: an image held in main memory, as Apple's `CVPixelBuffer` (a typealias of `CVImageBuffer`).
///
/// Create one with `CVPixelBufferCreate`, `CVPixelBufferCreateWithBytes`, `CVPixelBufferCreateWithPlanarBytes`
/// or `CVPixelBufferPoolCreatePixelBuffer`; read it with the `CVPixelBufferGet...` functions between
/// `CVPixelBufferLockBaseAddress` and `CVPixelBufferUnlockBaseAddress`.
public typealias CVPixelBuffer = CVImageBuffer

/// A CoreVideo buffer, as Apple's `CVBuffer` (the base CF type of image and pixel buffers). In Swift,
/// `CVBuffer`, `CVImageBuffer` and `CVPixelBuffer` are the same class, exactly as on Apple's systems; all
/// buffers in this implementation are pixel buffers.
///
/// Memory is managed by Swift: the pixels are freed, returned to their pool, or handed back to their external
/// owner (release callback) when the last reference goes away.
///
/// Storage: one to three planes, each a base address, width, height and bytes-per-row, plus the pixel format,
/// the image size and the attachments. The memory is either owned (one 64-byte-aligned allocation), lent by a
/// `CVPixelBufferPool`, or external memory wrapped together with a release callback (package API used by the
/// FFmpeg bridge to wrap decoded frames without copying).
///
/// Differs from Apple:
/// - `Sendable` (unchecked): Apple's `CVBuffer` is not `Sendable`, so apps often declare
///   `extension CVPixelBuffer: @unchecked Sendable {}`; that still compiles here, with a redundant-conformance
///   warning. Every function may be called from any thread, as on Apple's systems: attachments and lock
///   bookkeeping are guarded by a lock; the pixels themselves are, as there, the user's to synchronise.
/// - There is no `CMAttachmentBearerProtocol` conformance (it belongs to CoreMedia); use the `CVBuffer...`
///   attachment functions.
/// - Apps cannot subclass it (Apple's CF types cannot be subclassed either).
public final class CVBuffer: Hashable, @unchecked Sendable {
    /// The pixel format (`kCVPixelFormatType_...`).
    package let pixelFormatType: OSType
    /// Image width in pixels.
    package let width: Int
    /// Image height in pixels.
    package let height: Int
    /// Whether the buffer's format is planar; chunky buffers report 0 planes through the public API.
    package let isPlanar: Bool
    /// The storage planes (one for chunky formats).
    package let planes: [PixelBufferPlane]
    /// Size in bytes of the pixel memory, as `CVPixelBufferGetDataSize` reports it.
    package let dataSize: Int

    /// What happens to the memory when the buffer goes away.
    private enum Backing {
        /// The buffer owns the block; it is freed with the buffer.
        case owned(PixelMemory)
        /// Memory owned elsewhere (a pool, an FFmpeg frame, an app): `release` runs exactly once, from `deinit`.
        case external(release: @Sendable () -> Void)
    }

    /// Written once in `init`, consumed by `deinit`.
    private let backing: Backing

    /// The attachments. Guarded by `stateLock`; reach them through `withAttachments(_:)`.
    private var attachments: CVBufferAttachmentStore
    /// Outstanding `CVPixelBufferLockBaseAddress(_, .readOnly)` calls. Guarded by `stateLock`.
    private var readOnlyLockCount = 0
    /// Outstanding read-write `CVPixelBufferLockBaseAddress` calls. Guarded by `stateLock`.
    private var readWriteLockCount = 0

    /// Guards the `var`s above: this buffer's stripe of ``BufferStateLocks`` (shared with other buffers, so
    /// held only for a few instructions, never while calling out).
    private var stateLock: ConditionLock {
        BufferStateLocks.lock(for: self)
    }

    // MARK: Package initialisers

    /// Wraps memory owned by someone else, with no copy. `releaseCallback` runs exactly once, on whichever
    /// thread drops the last reference, when the buffer is deinitialised; it must free or unreference the
    /// memory behind `planes` (for an FFmpeg frame: `av_frame_free`).
    ///
    /// - Parameters:
    ///   - pixelFormatType: the pixel format; for formats in `PixelFormatLayout` the plane count must match
    ///     (one plane for chunky formats). Other formats are accepted and treated as planar when they have more
    ///     than one plane.
    ///   - width: image width in pixels, positive.
    ///   - height: image height in pixels, positive.
    ///   - planes: the planes in storage order (luma first), each with a positive `bytesPerRow` at least as
    ///     long as its row payload; negative (bottom-up) strides are not supported.
    ///   - dataSize: what `CVPixelBufferGetDataSize` reports; by default the sum of `bytesPerRow * height`.
    ///   - attachments: initial attachments, e.g. the frame's colour description.
    ///   - releaseCallback: called once when the buffer goes away.
    ///
    /// Traps (programmer error) when the description is inconsistent.
    package init(
        pixelFormatType: OSType,
        width: Int,
        height: Int,
        planes: [PixelBufferPlane],
        dataSize: Int? = nil,
        attachments: CVBufferAttachmentStore = CVBufferAttachmentStore(),
        releaseCallback: @escaping @Sendable () -> Void
    ) {
        Self.validate(pixelFormatType: pixelFormatType, width: width, height: height, planes: planes)
        self.pixelFormatType = pixelFormatType
        self.width = width
        self.height = height
        self.planes = planes
        self.isPlanar = PixelFormatLayout.forPixelFormatType(pixelFormatType)?.isPlanar ?? (planes.count > 1)
        self.dataSize = dataSize ?? planes.reduce(0) { $0 + $1.bytesPerRow * $1.height }
        self.backing = .external(release: releaseCallback)
        self.attachments = attachments
    }

    /// Allocates an owned buffer laid out by `layout`. The pixel bytes are uninitialised.
    ///
    /// - Throws: `allocationFailed` when memory is exhausted.
    package convenience init(
        layout: PixelBufferLayout,
        attachments: CVBufferAttachmentStore = CVBufferAttachmentStore()
    ) throws(CoreVideoError) {
        guard let memory = PixelMemory(byteCount: layout.dataSize) else { throw .allocationFailed }
        self.init(layout: layout, memory: memory, owned: true, attachments: attachments, release: nil)
    }

    /// Lays a buffer over `memory`: owning it, or lending it and running `release` on deinit (pools).
    init(
        layout: PixelBufferLayout,
        memory: PixelMemory,
        owned: Bool,
        attachments: CVBufferAttachmentStore,
        release: (@Sendable () -> Void)?
    ) {
        precondition(memory.byteCount >= layout.dataSize, "CVBuffer: memory block smaller than its layout")
        self.pixelFormatType = layout.pixelFormat.pixelFormatType
        self.width = layout.width
        self.height = layout.height
        self.isPlanar = layout.pixelFormat.isPlanar
        self.planes = layout.planes.map {
            PixelBufferPlane(
                baseAddress: memory.baseAddress + $0.offset, width: $0.width, height: $0.height,
                bytesPerRow: $0.bytesPerRow)
        }
        self.dataSize = layout.dataSize
        if owned {
            self.backing = .owned(memory)
        } else {
            guard let release else { coreVideoAPIViolation("a lent memory block needs a release action") }
            self.backing = .external(release: release)
        }
        self.attachments = attachments
    }

    deinit {
        if case .external(let release) = backing {
            release()
        }
    }

    private static func validate(pixelFormatType: OSType, width: Int, height: Int, planes: [PixelBufferPlane]) {
        guard width > 0, height > 0 else {
            coreVideoAPIViolation("size \(width)x\(height) is not positive")
        }
        guard !planes.isEmpty, planes.count <= 4 else {
            coreVideoAPIViolation("\(planes.count) planes; a pixel buffer has 1 to 4")
        }
        if let layout = PixelFormatLayout.forPixelFormatType(pixelFormatType) {
            guard layout.planes.count == planes.count else {
                coreVideoAPIViolation(
                    "format \(pixelFormatType) has \(layout.planes.count) planes, \(planes.count) given")
            }
            for (plane, formatPlane) in zip(planes, layout.planes) {
                let minimum = formatPlane.minimumBytesPerRow(forPlaneWidth: plane.width)
                guard plane.bytesPerRow >= minimum, plane.width > 0, plane.height > 0 else {
                    coreVideoAPIViolation("plane \(plane.width)x\(plane.height) stride \(plane.bytesPerRow) invalid")
                }
            }
        } else {
            for plane in planes where plane.bytesPerRow <= 0 || plane.width <= 0 || plane.height <= 0 {
                coreVideoAPIViolation("plane \(plane.width)x\(plane.height) stride \(plane.bytesPerRow) invalid")
            }
        }
    }

    // MARK: Package accessors

    /// The plane count Apple reports: the number of planes for planar buffers, 0 for chunky ones.
    package var planeCount: Int {
        isPlanar ? planes.count : 0
    }

    /// The number of outstanding base-address locks (read-only plus read-write).
    package var lockCount: Int {
        let lock = stateLock
        lock.lock()
        defer { lock.unlock() }
        return readOnlyLockCount + readWriteLockCount
    }

    /// Records a `CVPixelBufferLockBaseAddress`.
    func lockBaseAddress(_ flags: CVPixelBufferLockFlags) -> CVReturn {
        let readOnly = flags.contains(.readOnly)
        let lock = stateLock
        lock.lock()
        if readOnly {
            readOnlyLockCount += 1
        } else {
            readWriteLockCount += 1
        }
        lock.unlock()
        return kCVReturnSuccess
    }

    /// Records a `CVPixelBufferUnlockBaseAddress`: the flags must match an outstanding lock.
    func unlockBaseAddress(_ flags: CVPixelBufferLockFlags) -> CVReturn {
        let readOnly = flags.contains(.readOnly)
        let lock = stateLock
        lock.lock()
        defer { lock.unlock() }
        if readOnly, readOnlyLockCount > 0 {
            readOnlyLockCount -= 1
            return kCVReturnSuccess
        }
        if !readOnly, readWriteLockCount > 0 {
            readWriteLockCount -= 1
            return kCVReturnSuccess
        }
        // Locked, but only with the other flags: the caller passed mismatched flags.
        return readOnlyLockCount + readWriteLockCount > 0 ? kCVReturnInvalidArgument : kCVReturnError
    }

    /// Runs `body` on the attachments under the buffer's lock; any thread may call it.
    ///
    /// `body` runs with a lock shared by other buffers held: it must be short, touch no other buffer, call no user
    /// code, and drop no attachment value (a value's `deinit` is user code): it returns the values it replaces or
    /// removes, and the caller drops them once the lock is released.
    func withAttachments<Result>(_ body: (inout CVBufferAttachmentStore) -> Result) -> Result {
        let lock = stateLock
        lock.lock()
        defer { lock.unlock() }
        return body(&attachments)
    }

    // MARK: Equatable, Hashable

    /// Buffers are equal only when they are the same buffer, as CF's `CFEqual` for CoreVideo buffers.
    public static func == (lhs: CVBuffer, rhs: CVBuffer) -> Bool {
        lhs === rhs
    }

    /// Hashes the buffer's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
