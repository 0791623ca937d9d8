import Foundation
import TestSupport
import XCTest

/// Reads frame indices from ffmpeg's reference decodes of the fixtures, and from synthetic pictures.
final class FrameIndexReaderTests: XCTestCase {
    /// Decodes `indices` of `fixture` and asserts each frame reads back as its own index.
    private func assertReadsIndices(
        _ fixture: Fixture, _ indices: [Int]?, pixelFormat: RawPixelFormat = .gray,
        size: (width: Int, height: Int)? = nil, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let url = try Fixtures.url(fixture)
        let frames = try ReferenceDecoder.videoFrames(of: url, indices: indices, pixelFormat: pixelFormat, size: size)
        let expected = indices.map { Set($0).sorted() } ?? Array(0..<(fixture.facts.video?.frameCount ?? 0))
        let label = "\(fixture.rawValue) \(pixelFormat.rawValue) \(size.map { "\($0.width)x\($0.height)" } ?? "")"
        XCTAssertEqual(frames.count, expected.count, label, file: file, line: line)
        let readings = frames.map { $0.frameIndex() }
        XCTAssertEqual(readings.map { $0?.index }, expected, label, file: file, line: line)
        let margin = readings.compactMap { $0?.margin }.min() ?? 0
        XCTAssertGreaterThan(margin, 0.5, "\(label): weakest band margin", file: file, line: line)
    }

    func testReferenceFileFramesInGrayAndBGRA() throws {
        try assertReadsIndices(.h264AAC, [0, 1, 2, 37, 299], pixelFormat: .gray)
        try assertReadsIndices(.h264AAC, [0, 1, 2, 37, 299], pixelFormat: .bgra)
    }

    func testEveryFrameOfTheVariableFrameRateFileInOrder() throws {
        try assertReadsIndices(.variableFrameRate, nil)
    }

    func testScaledDownDecode() throws {
        try assertReadsIndices(.h264AAC, [0, 1, 2, 3, 127, 128, 255, 256, 299], size: (160, 120))
        try assertReadsIndices(.h264AAC, [0, 1, 2, 3, 127, 128, 255, 256, 299], pixelFormat: .bgra, size: (160, 120))
    }

    func testOddSizedFile() throws {
        try assertReadsIndices(.odd321x241, nil)
        try assertReadsIndices(.odd321x241, [0, 1, 31, 59], pixelFormat: .rgba)
    }

    func test1080pFrame() throws {
        try assertReadsIndices(.longGOP1080p, [450])
    }

    func testOtherCodecsAndContainers() throws {
        try assertReadsIndices(.hevcMKV, [0, 1, 45, 89])
        try assertReadsIndices(.vp9OpusWebM, [0, 1, 61, 89], pixelFormat: .argb)
        try assertReadsIndices(.h264AACTS, [0, 1, 89])
        try assertReadsIndices(.multiAudioSubtitles, [0, 77, 149])
        try assertReadsIndices(.rotated90, [0, 1, 89])  // coded orientation: the strip is still on top
        try assertReadsIndices(.videoOnly, [0, 89])
        try assertReadsIndices(.demo, [0, 200, 239], pixelFormat: .abgr)
    }

    // MARK: - Synthetic pictures

    /// A `width` x `height` picture in `layout` (or gray when `nil`) with `index` drawn, `padding` spare bytes per
    /// row, bands `white`/`black` and the picture below the strip filled with `below`.
    private func picture(
        index: Int, width: Int, height: Int, layout: PackedPixelLayout?, padding: Int = 12, white: UInt8 = 235,
        black: UInt8 = 16, below: (Int, Int) -> UInt8 = { x, y in UInt8((x * 7 + y * 3) & 0xFF) }
    ) -> (bytes: [UInt8], bytesPerRow: Int) {
        let bytesPerPixel = layout == nil ? 1 : 4
        let bytesPerRow = width * bytesPerPixel + padding
        var bytes = [UInt8](repeating: 0x55, count: bytesPerRow * height)
        for y in 0..<height {
            for x in 0..<width {
                let value: UInt8
                if y < height / 8 {
                    let band = x * 16 / width
                    value = index & (1 << band) != 0 ? white : black
                } else {
                    value = below(x, y)
                }
                for component in 0..<bytesPerPixel {
                    bytes[y * bytesPerRow + x * bytesPerPixel + component] = value
                }
            }
        }
        return (bytes, bytesPerRow)
    }

    private func read(
        _ picture: (bytes: [UInt8], bytesPerRow: Int), width: Int, height: Int, layout: PackedPixelLayout?,
        minimumMargin: Double = FrameIndexReader.defaultMinimumMargin
    ) -> FrameIndexReading? {
        picture.bytes.withUnsafeBytes { raw in
            if let layout {
                return FrameIndexReader.read(
                    pixels: raw, layout: layout, width: width, height: height, bytesPerRow: picture.bytesPerRow,
                    minimumMargin: minimumMargin)
            }
            return FrameIndexReader.read(
                luma: raw, width: width, height: height, bytesPerRow: picture.bytesPerRow, minimumMargin: minimumMargin)
        }
    }

    func testSyntheticPatternInEveryLayout() {
        let layouts: [PackedPixelLayout?] = [nil] + PackedPixelLayout.allCases
        for layout in layouts {
            for (width, height) in [(64, 48), (320, 240), (321, 241), (48, 16)] {
                for index in [0, 1, 0xA5C3, 0x8000, 0xFFFF] {
                    let image = picture(index: index, width: width, height: height, layout: layout)
                    let reading = read(image, width: width, height: height, layout: layout)
                    let label = "\(layout.map(\.rawValue) ?? "gray") \(width)x\(height) #\(index)"
                    XCTAssertEqual(reading?.index, index, label)
                    let margin = index == 0 ? (128 - 16) / 127.5 : (235 - 128) / 127.5  // white is nearer mid-grey
                    XCTAssertEqual(reading?.margin ?? 0, margin, accuracy: 1e-9, label)
                    XCTAssertEqual(reading?.bandLevels.count, 16, label)
                }
            }
        }
    }

    func testBaseAddressEntryPoints() {
        let gray = picture(index: 0x0F0F, width: 96, height: 64, layout: nil)
        let fromGray = gray.bytes.withUnsafeBytes { raw in
            FrameIndexReader.read(luma: raw.baseAddress!, width: 96, height: 64, bytesPerRow: gray.bytesPerRow)
        }
        XCTAssertEqual(fromGray?.index, 0x0F0F)
        let argb = picture(index: 0xF0F0, width: 96, height: 64, layout: .argb)
        let fromARGB = argb.bytes.withUnsafeBytes { raw in
            FrameIndexReader.read(
                pixels: raw.baseAddress!, layout: .argb, width: 96, height: 64, bytesPerRow: argb.bytesPerRow)
        }
        XCTAssertEqual(fromARGB?.index, 0xF0F0)
    }

    func testFullRangeBandsHaveFullMargin() {
        let image = picture(index: 0x1234, width: 160, height: 120, layout: .bgra, white: 255, black: 0)
        let reading = read(image, width: 160, height: 120, layout: .bgra)
        XCTAssertEqual(reading?.index, 0x1234)
        XCTAssertEqual(reading?.margin ?? 0, 127.5 / 127.5 - 0.5 / 127.5, accuracy: 1e-9)
    }

    func testRejectsPicturesWithoutTheStrip() {
        var seed: UInt32 = 12_345
        let noise = picture(index: 0, width: 320, height: 240, layout: nil) { _, _ in 0 }
        var noisy = noise
        for offset in noisy.bytes.indices {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            noisy.bytes[offset] = UInt8(seed >> 24)
        }
        XCTAssertNil(read(noisy, width: 320, height: 240, layout: nil))

        let grey = (bytes: [UInt8](repeating: 128, count: 320 * 240), bytesPerRow: 320)
        XCTAssertNil(read(grey, width: 320, height: 240, layout: nil))

        var gradient = grey
        for y in 0..<240 {
            for x in 0..<320 { gradient.bytes[y * 320 + x] = UInt8(x * 255 / 319) }
        }
        XCTAssertNil(read(gradient, width: 320, height: 240, layout: nil))
    }

    func testAmbiguousBandIsRejectedUnlessTheCallerAcceptsIt() {
        var image = picture(index: 0x00FF, width: 160, height: 120, layout: nil)
        // Band 3 (x 30..<40) turns from white to slightly-above-mid grey.
        for y in 0..<15 {
            for x in 30..<40 { image.bytes[y * image.bytesPerRow + x] = 140 }
        }
        XCTAssertNil(read(image, width: 160, height: 120, layout: nil))
        let lenient = read(image, width: 160, height: 120, layout: nil, minimumMargin: -.infinity)
        XCTAssertEqual(lenient?.index, 0x00FF)
        XCTAssertEqual(lenient?.margin ?? 0, 12 / 127.5, accuracy: 1e-9)
    }

    func testTooSmallPictureIsRejected() {
        let image = picture(index: 3, width: 15, height: 40, layout: nil)
        XCTAssertNil(read(image, width: 15, height: 40, layout: nil))
    }
}
