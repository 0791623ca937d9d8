import CoreVideo
import XCTest

final class CVPixelBufferTests: XCTestCase {
    // MARK: Both call-site spellings

    func testCreateWithAppleStyleArguments() throws {
        let attrs: [String: Any] = [
            kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA,
            kCVPixelBufferWidthKey as String: 64,
            kCVPixelBufferHeightKey as String: 32,
            kCVPixelBufferIOSurfacePropertiesKey as String: [:] as [String: Any],
            kCVPixelBufferMetalCompatibilityKey as String: true,
        ]
        var pb: CVPixelBuffer?
        let status = CVPixelBufferCreate(
            kCFAllocatorDefault, 64, 32, kCVPixelFormatType_32BGRA,
            attrs as CFDictionary, &pb)
        XCTAssertEqual(status, kCVReturnSuccess)
        let buffer = try XCTUnwrap(pb)
        XCTAssertEqual(CVPixelBufferGetWidth(buffer), 64)
        XCTAssertEqual(CVPixelBufferGetHeight(buffer), 32)
        XCTAssertEqual(CVPixelBufferGetPixelFormatType(buffer), kCVPixelFormatType_32BGRA)
    }

    func testCreateWithNilAllocatorAndNilAttributes() throws {
        var pb: CVPixelBuffer?
        XCTAssertEqual(
            CVPixelBufferCreate(nil, 16, 8, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, nil, &pb),
            kCVReturnSuccess)
        let buffer = try XCTUnwrap(pb)
        XCTAssertEqual(CVPixelBufferGetPlaneCount(buffer), 2)
        // The result may be ignored, as with Apple's imported C functions.
        CVPixelBufferLockBaseAddress(buffer, .readOnly)
        CVPixelBufferUnlockBaseAddress(buffer, .readOnly)
    }

    func testExplicitArgumentsOverrideAttributes() throws {
        let attrs: [String: Any] = [
            kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_420YpCbCr8BiPlanarFullRange,
            kCVPixelBufferWidthKey as String: 1920,
            kCVPixelBufferHeightKey as String: 1080,
        ]
        let buffer = try makePixelBuffer(100, 50, kCVPixelFormatType_32BGRA, attributes: attrs)
        XCTAssertEqual(CVPixelBufferGetWidth(buffer), 100)
        XCTAssertEqual(CVPixelBufferGetHeight(buffer), 50)
        XCTAssertEqual(CVPixelBufferGetPixelFormatType(buffer), kCVPixelFormatType_32BGRA)
    }

    // MARK: Geometry of every format

    func testEveryFormatLaysOutPlanesForEvenOddAndTinySizes() throws {
        for format in PixelFormatLayout.allFormats {
            for (width, height) in [(320, 240), (321, 241), (1, 1), (1921, 1081)] {
                let buffer = try makePixelBuffer(width, height, format.pixelFormatType)
                let name = "\(format.pixelFormatType) \(width)x\(height)"
                XCTAssertEqual(CVPixelBufferIsPlanar(buffer), format.isPlanar, name)
                XCTAssertEqual(CVPixelBufferGetPlaneCount(buffer), format.isPlanar ? format.planes.count : 0, name)
                XCTAssertEqual(CVPixelBufferGetWidth(buffer), width, name)
                XCTAssertEqual(CVPixelBufferGetHeight(buffer), height, name)

                let base = try XCTUnwrap(CVPixelBufferGetBaseAddress(buffer), name)
                XCTAssertEqual(Int(bitPattern: base) % 64, 0, "base address alignment \(name)")
                var previousEnd = 0
                for (index, plane) in format.planes.enumerated() {
                    let planeWidth = (width + plane.horizontalSubsampling - 1) / plane.horizontalSubsampling
                    let planeHeight = (height + plane.verticalSubsampling - 1) / plane.verticalSubsampling
                    let address: UnsafeMutableRawPointer
                    let bytesPerRow: Int
                    if format.isPlanar {
                        XCTAssertEqual(CVPixelBufferGetWidthOfPlane(buffer, index), planeWidth, name)
                        XCTAssertEqual(CVPixelBufferGetHeightOfPlane(buffer, index), planeHeight, name)
                        bytesPerRow = CVPixelBufferGetBytesPerRowOfPlane(buffer, index)
                        address = try XCTUnwrap(CVPixelBufferGetBaseAddressOfPlane(buffer, index), name)
                    } else {
                        bytesPerRow = CVPixelBufferGetBytesPerRow(buffer)
                        address = base
                    }
                    XCTAssertEqual(bytesPerRow % 64, 0, "row alignment \(name) plane \(index)")
                    XCTAssertGreaterThanOrEqual(bytesPerRow, plane.minimumBytesPerRow(forPlaneWidth: planeWidth), name)
                    XCTAssertLessThan(bytesPerRow - plane.minimumBytesPerRow(forPlaneWidth: planeWidth), 64, name)
                    let offset = address - base
                    XCTAssertEqual(offset % 64, 0, "plane alignment \(name) plane \(index)")
                    XCTAssertGreaterThanOrEqual(offset, previousEnd, "planes overlap \(name)")
                    previousEnd = offset + bytesPerRow * planeHeight
                    // Touch the last byte of the plane: it must be inside the allocation.
                    (address + bytesPerRow * planeHeight - 1).storeBytes(of: 0xAB, as: UInt8.self)
                }
                XCTAssertEqual(CVPixelBufferGetDataSize(buffer), previousEnd, name)
            }
        }
    }

    func testOddSized420ChromaPlanesRoundUp() throws {
        for format in [
            kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, kCVPixelFormatType_420YpCbCr8Planar,
            kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange,
        ] {
            let buffer = try makePixelBuffer(321, 241, format)
            XCTAssertEqual(CVPixelBufferGetWidthOfPlane(buffer, 0), 321)
            XCTAssertEqual(CVPixelBufferGetHeightOfPlane(buffer, 0), 241)
            for plane in 1..<CVPixelBufferGetPlaneCount(buffer) {
                XCTAssertEqual(CVPixelBufferGetWidthOfPlane(buffer, plane), 161)
                XCTAssertEqual(CVPixelBufferGetHeightOfPlane(buffer, plane), 121)
            }
        }
    }

    func testKnownStridesAndSizes() throws {
        let bgra = try makePixelBuffer(321, 241, kCVPixelFormatType_32BGRA)
        XCTAssertEqual(CVPixelBufferGetBytesPerRow(bgra), 1344)  // 1284 rounded up to 64
        XCTAssertEqual(CVPixelBufferGetDataSize(bgra), 1344 * 241)

        let nv12 = try makePixelBuffer(321, 241, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
        XCTAssertEqual(CVPixelBufferGetBytesPerRowOfPlane(nv12, 0), 384)
        XCTAssertEqual(CVPixelBufferGetBytesPerRowOfPlane(nv12, 1), 384)  // 161 CbCr pairs = 322 bytes
        XCTAssertEqual(CVPixelBufferGetDataSize(nv12), 384 * 241 + 384 * 121)

        let i420 = try makePixelBuffer(321, 241, kCVPixelFormatType_420YpCbCr8Planar)
        XCTAssertEqual(CVPixelBufferGetPlaneCount(i420), 3)
        XCTAssertEqual(CVPixelBufferGetBytesPerRowOfPlane(i420, 1), 192)
        XCTAssertEqual(CVPixelBufferGetBytesPerRowOfPlane(i420, 2), 192)

        let p010 = try makePixelBuffer(321, 241, kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange)
        XCTAssertEqual(CVPixelBufferGetBytesPerRowOfPlane(p010, 0), 704)  // 642 bytes
        XCTAssertEqual(CVPixelBufferGetBytesPerRowOfPlane(p010, 1), 704)  // 644 bytes

        let uyvy = try makePixelBuffer(321, 241, kCVPixelFormatType_422YpCbCr8)
        XCTAssertEqual(CVPixelBufferGetPlaneCount(uyvy), 0)
        XCTAssertEqual(CVPixelBufferGetBytesPerRow(uyvy), 704)  // 161 blocks of 4 bytes = 644

        let rgb = try makePixelBuffer(321, 241, kCVPixelFormatType_24RGB)
        XCTAssertEqual(CVPixelBufferGetBytesPerRow(rgb), 1024)  // 963 bytes
    }

    func testBytesPerRowAlignmentAttributeIsHonoured() throws {
        let sixteen = try makePixelBuffer(
            321, 2, kCVPixelFormatType_32BGRA,
            attributes: [kCVPixelBufferBytesPerRowAlignmentKey as String: 16])
        XCTAssertEqual(CVPixelBufferGetBytesPerRow(sixteen), 1296)
        let tight = try makePixelBuffer(
            321, 2, kCVPixelFormatType_32BGRA,
            attributes: [kCVPixelBufferBytesPerRowAlignmentKey as String: 1])
        XCTAssertEqual(CVPixelBufferGetBytesPerRow(tight), 1284)
        let zeroMeansDefault = try makePixelBuffer(
            321, 2, kCVPixelFormatType_32BGRA,
            attributes: [kCVPixelBufferBytesPerRowAlignmentKey as String: 0])
        XCTAssertEqual(CVPixelBufferGetBytesPerRow(zeroMeansDefault), 1344)
    }

    func testPlaneAlignmentAttributeIsHonoured() throws {
        let buffer = try makePixelBuffer(
            100, 10, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange,
            attributes: [kCVPixelBufferPlaneAlignmentKey as String: 4096])
        let luma = try XCTUnwrap(CVPixelBufferGetBaseAddressOfPlane(buffer, 0))
        let chroma = try XCTUnwrap(CVPixelBufferGetBaseAddressOfPlane(buffer, 1))
        XCTAssertEqual(chroma - luma, 4096)
    }

    // MARK: Base addresses and pixel access

    func testChunkyBufferReportsNoPlanes() throws {
        let buffer = try makePixelBuffer(8, 8, kCVPixelFormatType_32BGRA)
        XCTAssertEqual(CVPixelBufferGetPlaneCount(buffer), 0)
        XCTAssertNil(CVPixelBufferGetBaseAddressOfPlane(buffer, 0))
        XCTAssertEqual(CVPixelBufferGetWidthOfPlane(buffer, 0), 0)
        XCTAssertEqual(CVPixelBufferGetHeightOfPlane(buffer, 0), 0)
        XCTAssertEqual(CVPixelBufferGetBytesPerRowOfPlane(buffer, 0), 0)
    }

    func testPlanarBaseAddressIsFirstPlaneAndOutOfRangePlaneIsNil() throws {
        let buffer = try makePixelBuffer(8, 8, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
        XCTAssertEqual(CVPixelBufferGetBaseAddress(buffer), CVPixelBufferGetBaseAddressOfPlane(buffer, 0))
        XCTAssertEqual(CVPixelBufferGetBytesPerRow(buffer), CVPixelBufferGetBytesPerRowOfPlane(buffer, 0))
        XCTAssertNil(CVPixelBufferGetBaseAddressOfPlane(buffer, 2))
        XCTAssertNil(CVPixelBufferGetBaseAddressOfPlane(buffer, -1))
        XCTAssertEqual(CVPixelBufferGetWidthOfPlane(buffer, 5), 0)
    }

    func testWriteAndReadBGRAPixelsThroughLockedBaseAddress() throws {
        let buffer = try makePixelBuffer(33, 17, kCVPixelFormatType_32BGRA)
        XCTAssertEqual(CVPixelBufferLockBaseAddress(buffer, []), kCVReturnSuccess)
        let base = try XCTUnwrap(CVPixelBufferGetBaseAddress(buffer))
        let bytesPerRow = CVPixelBufferGetBytesPerRow(buffer)
        for y in 0..<17 {
            let row = (base + y * bytesPerRow).assumingMemoryBound(to: UInt32.self)
            for x in 0..<33 { row[x] = UInt32(y << 16 | x) }
        }
        XCTAssertEqual(CVPixelBufferUnlockBaseAddress(buffer, []), kCVReturnSuccess)

        XCTAssertEqual(CVPixelBufferLockBaseAddress(buffer, .readOnly), kCVReturnSuccess)
        let readBase = try XCTUnwrap(CVPixelBufferGetBaseAddress(buffer))
        for y in 0..<17 {
            for x in 0..<33 {
                let value = (readBase + y * bytesPerRow + x * 4).load(as: UInt32.self)
                XCTAssertEqual(value, UInt32(y << 16 | x))
            }
        }
        XCTAssertEqual(CVPixelBufferUnlockBaseAddress(buffer, .readOnly), kCVReturnSuccess)
    }

    func testWriteAndReadNV12PlanesIndependently() throws {
        let buffer = try makePixelBuffer(9, 7, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
        CVPixelBufferLockBaseAddress(buffer, [])
        let luma = try XCTUnwrap(CVPixelBufferGetBaseAddressOfPlane(buffer, 0))
        let chroma = try XCTUnwrap(CVPixelBufferGetBaseAddressOfPlane(buffer, 1))
        let lumaStride = CVPixelBufferGetBytesPerRowOfPlane(buffer, 0)
        let chromaStride = CVPixelBufferGetBytesPerRowOfPlane(buffer, 1)
        for y in 0..<7 {
            for x in 0..<9 { (luma + y * lumaStride + x).storeBytes(of: UInt8(16 + y * 9 + x), as: UInt8.self) }
        }
        for y in 0..<4 {
            for x in 0..<5 {
                (chroma + y * chromaStride + 2 * x).storeBytes(of: UInt8(100 + x), as: UInt8.self)
                (chroma + y * chromaStride + 2 * x + 1).storeBytes(of: UInt8(200 + y), as: UInt8.self)
            }
        }
        CVPixelBufferUnlockBaseAddress(buffer, [])

        CVPixelBufferLockBaseAddress(buffer, .readOnly)
        for y in 0..<7 {
            for x in 0..<9 { XCTAssertEqual((luma + y * lumaStride + x).load(as: UInt8.self), UInt8(16 + y * 9 + x)) }
        }
        for y in 0..<4 {
            for x in 0..<5 {
                XCTAssertEqual((chroma + y * chromaStride + 2 * x).load(as: UInt8.self), UInt8(100 + x))
                XCTAssertEqual((chroma + y * chromaStride + 2 * x + 1).load(as: UInt8.self), UInt8(200 + y))
            }
        }
        CVPixelBufferUnlockBaseAddress(buffer, .readOnly)
    }

    // MARK: Invalid arguments

    func testInvalidArgumentsReturnApplesCodes() {
        var pb: CVPixelBuffer?
        XCTAssertEqual(CVPixelBufferCreate(nil, 0, 10, kCVPixelFormatType_32BGRA, nil, &pb), kCVReturnInvalidArgument)
        XCTAssertNil(pb)
        XCTAssertEqual(CVPixelBufferCreate(nil, 10, 0, kCVPixelFormatType_32BGRA, nil, &pb), kCVReturnInvalidArgument)
        XCTAssertEqual(CVPixelBufferCreate(nil, -4, 10, kCVPixelFormatType_32BGRA, nil, &pb), kCVReturnInvalidArgument)
        XCTAssertEqual(CVPixelBufferCreate(nil, 10, 10, fourCC("abcd"), nil, &pb), kCVReturnInvalidPixelFormat)
        XCTAssertEqual(
            CVPixelBufferCreate(nil, 1 << 40, 1 << 20, kCVPixelFormatType_32BGRA, nil, &pb),
            kCVReturnInvalidSize)
        XCTAssertNil(pb)
        let badAttributes: [String: Any] = [kCVPixelBufferBytesPerRowAlignmentKey as String: "sixty-four"]
        XCTAssertEqual(
            CVPixelBufferCreate(nil, 10, 10, kCVPixelFormatType_32BGRA, badAttributes as CFDictionary, &pb),
            kCVReturnInvalidPixelBufferAttributes)
    }

    func testFailureClearsOutParameter() throws {
        var pb: CVPixelBuffer? = try makePixelBuffer(4, 4, kCVPixelFormatType_32BGRA)
        XCTAssertEqual(CVPixelBufferCreate(nil, 0, 0, kCVPixelFormatType_32BGRA, nil, &pb), kCVReturnInvalidArgument)
        XCTAssertNil(pb)
    }

    // MARK: Identity and extended pixels

    func testBuffersCompareByIdentity() throws {
        let a = try makePixelBuffer(4, 4, kCVPixelFormatType_32BGRA)
        let b = try makePixelBuffer(4, 4, kCVPixelFormatType_32BGRA)
        XCTAssertEqual(a, a)
        XCTAssertNotEqual(a, b)
        XCTAssertEqual(Set([a, a, b]).count, 2)
        let image: CVImageBuffer = a
        let base: CVBuffer = image
        XCTAssertTrue(base === a)
    }

    func testExtendedPixelsAreZero() throws {
        let buffer = try makePixelBuffer(4, 4, kCVPixelFormatType_32BGRA)
        var left = -1
        var right = -1
        var top = -1
        var bottom = -1
        CVPixelBufferGetExtendedPixels(buffer, &left, &right, &top, &bottom)
        XCTAssertEqual([left, right, top, bottom], [0, 0, 0, 0])
        CVPixelBufferGetExtendedPixels(buffer, nil, nil, nil, nil)
        XCTAssertEqual(CVPixelBufferFillExtendedPixels(buffer), kCVReturnSuccess)
    }
}
