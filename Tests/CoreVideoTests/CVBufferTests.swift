import CoreVideo
import XCTest

/// Wrapping external memory: the package initialiser the FFmpeg bridge uses, and Apple's
/// `CVPixelBufferCreateWithBytes` / `CVPixelBufferCreateWithPlanarBytes`.
final class CVBufferTests: XCTestCase {
    func testPackageWrapperExposesPlanesAndReleasesExactlyOnce() throws {
        let lumaStride = 352
        let chromaStride = 352
        let luma = UnsafeMutableRawPointer.allocate(byteCount: lumaStride * 240, alignment: 64)
        let chroma = UnsafeMutableRawPointer.allocate(byteCount: chromaStride * 120, alignment: 64)
        let released = Counter()
        let lumaAddress = Int(bitPattern: luma)
        let chromaAddress = Int(bitPattern: chroma)
        var buffer: CVPixelBuffer? = CVBuffer(
            pixelFormatType: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, width: 320, height: 240,
            planes: [
                PixelBufferPlane(baseAddress: luma, width: 320, height: 240, bytesPerRow: lumaStride),
                PixelBufferPlane(baseAddress: chroma, width: 160, height: 120, bytesPerRow: chromaStride),
            ],
            attachments: CVBufferAttachmentStore(
                propagated: [kCVImageBufferYCbCrMatrixKey: kCVImageBufferYCbCrMatrix_ITU_R_709_2]),
            releaseCallback: {
                released.increment()
                UnsafeMutableRawPointer(bitPattern: lumaAddress)?.deallocate()
                UnsafeMutableRawPointer(bitPattern: chromaAddress)?.deallocate()
            })
        do {
            let pb = try XCTUnwrap(buffer)
            XCTAssertEqual(CVPixelBufferGetPlaneCount(pb), 2)
            XCTAssertEqual(CVPixelBufferGetBaseAddressOfPlane(pb, 0), luma)
            XCTAssertEqual(CVPixelBufferGetBaseAddressOfPlane(pb, 1), chroma)
            XCTAssertEqual(CVPixelBufferGetBytesPerRowOfPlane(pb, 1), chromaStride)
            XCTAssertEqual(CVPixelBufferGetWidthOfPlane(pb, 1), 160)
            XCTAssertEqual(CVPixelBufferGetDataSize(pb), lumaStride * 240 + chromaStride * 120)
            XCTAssertEqual(CVBufferCopyAttachment(pb, kCVImageBufferYCbCrMatrixKey, nil) as? String, "ITU_R_709_2")
        }
        XCTAssertEqual(released.count, 0, "still referenced by buffer")
        buffer = nil
        XCTAssertEqual(released.count, 1)
    }

    func testPackageWrapperReleasesWhenLastReferenceDropsOnAnotherThread() {
        let released = Counter()
        let memory = UnsafeMutableRawPointer.allocate(byteCount: 64 * 4, alignment: 64)
        let address = Int(bitPattern: memory)
        let releasedOnce = expectation(description: "release callback ran")
        do {
            let buffer = CVBuffer(
                pixelFormatType: kCVPixelFormatType_32BGRA, width: 16, height: 4,
                planes: [PixelBufferPlane(baseAddress: memory, width: 16, height: 4, bytesPerRow: 64)],
                releaseCallback: {
                    released.increment()
                    UnsafeMutableRawPointer(bitPattern: address)?.deallocate()
                    releasedOnce.fulfill()
                })
            // The queue's closure holds the last reference; the buffer dies on that thread.
            DispatchQueue.global().async { [buffer] in
                XCTAssertEqual(CVPixelBufferGetWidth(buffer), 16)
            }
        }
        wait(for: [releasedOnce], timeout: 5)
        XCTAssertEqual(released.count, 1)
    }

    func testPackageWrapperReleasesExactlyOnceWhenDropped() {
        let released = Counter()
        let memory = UnsafeMutableRawPointer.allocate(byteCount: 8, alignment: 64)
        let address = Int(bitPattern: memory)
        var buffer: CVPixelBuffer? = CVBuffer(
            pixelFormatType: kCVPixelFormatType_OneComponent8, width: 8, height: 1,
            planes: [PixelBufferPlane(baseAddress: memory, width: 8, height: 1, bytesPerRow: 8)],
            releaseCallback: {
                released.increment()
                UnsafeMutableRawPointer(bitPattern: address)?.deallocate()
            })
        XCTAssertNotNil(buffer)
        buffer = nil
        XCTAssertEqual(released.count, 1)
    }

    func testCreateWithBytesWrapsWithoutCopy() throws {
        final class Box {
            var releases = 0
            var releasedAddress: UnsafeRawPointer?
        }
        let box = Box()
        let bytesPerRow = 40
        let memory = UnsafeMutableRawPointer.allocate(byteCount: bytesPerRow * 3, alignment: 16)
        defer { memory.deallocate() }
        memory.storeBytes(of: 0xDEAD_BEEF, as: UInt32.self)

        var pb: CVPixelBuffer?
        let status = CVPixelBufferCreateWithBytes(
            kCFAllocatorDefault, 10, 3, kCVPixelFormatType_32BGRA, memory, bytesPerRow,
            { refCon, baseAddress in
                let box = Unmanaged<Box>.fromOpaque(refCon!).takeUnretainedValue()
                box.releases += 1
                box.releasedAddress = baseAddress
            },
            Unmanaged.passUnretained(box).toOpaque(), nil, &pb)
        XCTAssertEqual(status, kCVReturnSuccess)
        let buffer = try XCTUnwrap(pb)
        XCTAssertEqual(CVPixelBufferGetBaseAddress(buffer), memory)
        XCTAssertEqual(CVPixelBufferGetBytesPerRow(buffer), bytesPerRow)
        XCTAssertEqual(CVPixelBufferGetBaseAddress(buffer)?.load(as: UInt32.self), 0xDEAD_BEEF)
        XCTAssertEqual(CVPixelBufferGetDataSize(buffer), bytesPerRow * 3)
        pb = nil
        XCTAssertEqual(box.releases, 0)
        _ = buffer
    }

    func testCreateWithBytesReleaseRunsOnDeinit() {
        final class Box { var releases = 0 }
        let box = Box()
        let memory = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16)
        defer { memory.deallocate() }
        var pb: CVPixelBuffer?
        CVPixelBufferCreateWithBytes(
            nil, 4, 1, kCVPixelFormatType_32BGRA, memory, 16,
            { refCon, _ in Unmanaged<Box>.fromOpaque(refCon!).takeUnretainedValue().releases += 1 },
            Unmanaged.passUnretained(box).toOpaque(), nil, &pb)
        XCTAssertNotNil(pb)
        pb = nil
        XCTAssertEqual(box.releases, 1)
    }

    func testCreateWithBytesRejectsBadArgumentsWithoutCallingBack() {
        final class Box { var releases = 0 }
        let box = Box()
        let memory = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16)
        defer { memory.deallocate() }
        let callback: CVPixelBufferReleaseBytesCallback = { refCon, _ in
            Unmanaged<Box>.fromOpaque(refCon!).takeUnretainedValue().releases += 1
        }
        let refCon = Unmanaged.passUnretained(box).toOpaque()
        var pb: CVPixelBuffer?
        XCTAssertEqual(
            CVPixelBufferCreateWithBytes(
                nil, 4, 1, kCVPixelFormatType_32BGRA, memory, 15, callback,
                refCon, nil, &pb), kCVReturnInvalidArgument)
        XCTAssertEqual(
            CVPixelBufferCreateWithBytes(
                nil, 0, 1, kCVPixelFormatType_32BGRA, memory, 16, callback,
                refCon, nil, &pb), kCVReturnInvalidArgument)
        XCTAssertEqual(
            CVPixelBufferCreateWithBytes(
                nil, 4, 1, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange,
                memory, 16, callback, refCon, nil, &pb),
            kCVReturnInvalidPixelFormat)
        XCTAssertNil(pb)
        XCTAssertEqual(box.releases, 0)
    }

    func testCreateWithPlanarBytesWrapsPlanesWithoutCopy() throws {
        final class Box {
            var releases = 0
            var planeCount = 0
            var addresses: [UnsafeRawPointer?] = []
            var dataSize = 0
        }
        let box = Box()
        let y = UnsafeMutableRawPointer.allocate(byteCount: 64 * 5, alignment: 64)
        let cb = UnsafeMutableRawPointer.allocate(byteCount: 32 * 3, alignment: 64)
        let cr = UnsafeMutableRawPointer.allocate(byteCount: 32 * 3, alignment: 64)
        defer { for plane in [y, cb, cr] { plane.deallocate() } }
        var addresses: [UnsafeMutableRawPointer?] = [y, cb, cr]
        var widths = [9, 5, 5]
        var heights = [5, 3, 3]
        var strides = [64, 32, 32]

        var pb: CVPixelBuffer?
        let status = CVPixelBufferCreateWithPlanarBytes(
            nil, 9, 5, kCVPixelFormatType_420YpCbCr8Planar, nil, 0, 3, &addresses, &widths, &heights, &strides,
            { refCon, _, dataSize, planeCount, planes in
                let box = Unmanaged<Box>.fromOpaque(refCon!).takeUnretainedValue()
                box.releases += 1
                box.planeCount = planeCount
                box.dataSize = dataSize
                box.addresses = (0..<planeCount).map { planes![$0] }
            },
            Unmanaged.passUnretained(box).toOpaque(), nil, &pb)
        XCTAssertEqual(status, kCVReturnSuccess)
        let buffer = try XCTUnwrap(pb)
        XCTAssertEqual(CVPixelBufferGetPlaneCount(buffer), 3)
        XCTAssertEqual(CVPixelBufferGetBaseAddressOfPlane(buffer, 2), cr)
        XCTAssertEqual(CVPixelBufferGetWidthOfPlane(buffer, 1), 5)
        XCTAssertEqual(CVPixelBufferGetBytesPerRowOfPlane(buffer, 0), 64)
        pb = nil
        XCTAssertEqual(box.releases, 0)
        _ = buffer
    }

    func testCreateWithPlanarBytesReleaseReceivesPlaneAddresses() {
        final class Box {
            var releases = 0
            var addresses: [UnsafeRawPointer?] = []
        }
        let box = Box()
        let y = UnsafeMutableRawPointer.allocate(byteCount: 64 * 4, alignment: 64)
        let uv = UnsafeMutableRawPointer.allocate(byteCount: 64 * 2, alignment: 64)
        defer {
            y.deallocate()
            uv.deallocate()
        }
        var addresses: [UnsafeMutableRawPointer?] = [y, uv]
        var widths = [4, 2]
        var heights = [4, 2]
        var strides = [64, 64]
        var pb: CVPixelBuffer?
        XCTAssertEqual(
            CVPixelBufferCreateWithPlanarBytes(
                nil, 4, 4, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange, nil, 0, 2, &addresses, &widths, &heights,
                &strides,
                { refCon, _, _, planeCount, planes in
                    let box = Unmanaged<Box>.fromOpaque(refCon!).takeUnretainedValue()
                    box.releases += 1
                    box.addresses = (0..<planeCount).map { planes![$0] }
                },
                Unmanaged.passUnretained(box).toOpaque(), nil, &pb), kCVReturnSuccess)
        pb = nil
        XCTAssertEqual(box.releases, 1)
        XCTAssertEqual(box.addresses, [UnsafeRawPointer(y), UnsafeRawPointer(uv)])
    }

    func testCreateWithPlanarBytesRejectsWrongPlaneCountAndChunkyFormats() {
        let y = UnsafeMutableRawPointer.allocate(byteCount: 64 * 4, alignment: 64)
        defer { y.deallocate() }
        var addresses: [UnsafeMutableRawPointer?] = [y, nil]
        var widths = [4, 2]
        var heights = [4, 2]
        var strides = [64, 64]
        var pb: CVPixelBuffer?
        XCTAssertEqual(
            CVPixelBufferCreateWithPlanarBytes(
                nil, 4, 4, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange, nil, 0, 1, &addresses, &widths, &heights,
                &strides, nil, nil, nil, &pb), kCVReturnInvalidArgument)
        XCTAssertEqual(
            CVPixelBufferCreateWithPlanarBytes(
                nil, 4, 4, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange, nil, 0, 2, &addresses, &widths, &heights,
                &strides, nil, nil, nil, &pb), kCVReturnInvalidArgument, "missing plane address")
        XCTAssertEqual(
            CVPixelBufferCreateWithPlanarBytes(
                nil, 4, 4, kCVPixelFormatType_32BGRA, nil, 0, 1, &addresses, &widths, &heights,
                &strides, nil, nil, nil, &pb), kCVReturnInvalidPixelFormat)
        XCTAssertNil(pb)
    }
}
