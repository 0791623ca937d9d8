import Foundation
import PlaybackEngine

/// The built-in compositor: draws the item's video track as the active ``AVVideoCompositionInstruction``'s layer
/// instruction says — transform (with ramps), opacity over black, crop rectangle — into a 32-bit BGRA picture of
/// the composition's render size, on the CPU.
///
/// Each output pixel centre is mapped back through the inverse transform into the source picture and sampled
/// bilinearly (clamped to the crop rectangle, so edges stay sharp); points outside the crop rectangle or the
/// picture are black. A track without a layer instruction, a time without an instruction, a transform that cannot
/// be inverted, or opacity 0 give a black picture. A layer that shows the picture unchanged at its own size is
/// only converted to BGRA (libswscale), with no per-pixel work.
///
/// Not thread-safe: its ``VideoCompositionRenderer`` serialises calls.
final class BuiltInVideoCompositor {
    /// Output buffers for the current size.
    private var pool: CVPixelBufferPool?
    /// Converts source pictures that are not BGRA; made on first need.
    private var toBGRA: PixelConverter?

    /// The picture of `source` (track `trackID`) at item time `time` composed per `composition`.
    ///
    /// - Throws: when the source cannot be converted to BGRA or no output buffer can be allocated.
    func compose(
        _ source: CVPixelBuffer, at time: CMTime, trackID: CMPersistentTrackID, composition: AVVideoComposition
    ) throws -> CVPixelBuffer {
        let (width, height) = composition.pixelSize
        let instruction = composition.instruction(at: time) as? AVVideoCompositionInstruction
        let layer = instruction?.layerInstructions.first { $0.trackID == trackID }
        if let layer, isPlainCopy(layer, at: time, source: source, width: width, height: height, composition) {
            // The picture as it is: only a format conversion (libswscale), no per-pixel work.
            return source.pixelFormatType == kCVPixelFormatType_32BGRA ? source : try convertToBGRA(source)
        }
        let output = try makeBuffer(width: width, height: height)
        CVPixelBufferLockBaseAddress(output, [])
        defer { CVPixelBufferUnlockBaseAddress(output, []) }
        let out = output.planes[0]
        guard let layer else {
            fillBlack(out, width: width, height: height)
            return output
        }
        let scale = CGFloat(composition.pixelScale)
        let transform = layer.transform(at: time).concatenating(CGAffineTransform(scaleX: scale, y: scale))
        let opacity = layer.opacity(at: time)
        let bounds = CGRect(x: 0, y: 0, width: source.width, height: source.height)
        let crop = layer.cropRectangle(at: time).map { $0.standardized.intersection(bounds) } ?? bounds
        let determinant = transform.a * transform.d - transform.b * transform.c
        guard opacity > 0, !crop.isNull, !crop.isEmpty, determinant != 0, determinant.isFinite else {
            fillBlack(out, width: width, height: height)
            return output
        }
        let bgra = source.pixelFormatType == kCVPixelFormatType_32BGRA ? source : try convertToBGRA(source)
        CVPixelBufferLockBaseAddress(bgra, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(bgra, .readOnly) }
        withExtendedLifetime(bgra) {
            draw(
                bgra.planes[0], crop: crop, inverse: transform.inverted(), opacity: opacity, into: out, width: width,
                height: height)
        }
        return output
    }

    /// Whether `layer` shows `source` unchanged at `time`: identity transform at scale 1, full opacity, no crop
    /// inside the picture, and an output of the picture's size.
    private func isPlainCopy(
        _ layer: AVVideoCompositionLayerInstruction, at time: CMTime, source: CVPixelBuffer, width: Int, height: Int,
        _ composition: AVVideoComposition
    ) -> Bool {
        guard width == source.width, height == source.height, composition.pixelScale == 1,
            layer.opacity(at: time) >= 1, layer.transform(at: time).isIdentity
        else { return false }
        guard let crop = layer.cropRectangle(at: time) else { return true }
        return crop.standardized.contains(CGRect(x: 0, y: 0, width: source.width, height: source.height))
    }

    /// Samples the source for every output pixel, in bands of rows on several threads.
    private func draw(
        _ src: PixelBufferPlane, crop: CGRect, inverse m: CGAffineTransform, opacity: Float, into out: PixelBufferPlane,
        width: Int, height: Int
    ) {
        let sampler = Sampler(
            source: src, crop: crop, inverse: m, gain: Int((opacity * 256).rounded()), output: out, width: width)
        // Tuning: bands of at least 32 rows, so small pictures are not split into work too small to share.
        let bands = max(1, min(ProcessInfo.processInfo.activeProcessorCount, height / 32))
        if bands == 1 {
            sampler.draw(rows: 0..<height)
            return
        }
        DispatchQueue.concurrentPerform(iterations: bands) { band in
            sampler.draw(rows: (band * height / bands)..<((band + 1) * height / bands))
        }
    }

    /// Opaque black everywhere.
    private func fillBlack(_ out: PixelBufferPlane, width: Int, height: Int) {
        for y in 0..<height {
            let row = out.baseAddress.advanced(by: y * out.bytesPerRow).assumingMemoryBound(to: UInt32.self)
            // BGRA bytes 0, 0, 0, 255 as a little-endian word.
            row.update(repeating: UInt32(0xFF00_0000).littleEndian, count: width)
        }
    }

    private func convertToBGRA(_ source: CVPixelBuffer) throws -> CVPixelBuffer {
        let converter = try toBGRA ?? PixelConverter(outputPixelFormatType: kCVPixelFormatType_32BGRA, threads: 1)
        toBGRA = converter
        return try converter.convert(source)
    }

    private func makeBuffer(width: Int, height: Int) throws -> CVPixelBuffer {
        try CVPixelBufferPool.makeBuffer(
            reusing: &pool, width: width, height: height, pixelFormatType: kCVPixelFormatType_32BGRA)
    }
}

/// The per-pixel work of the built-in compositor: maps output pixel centres through the inverse transform and
/// samples the BGRA source bilinearly (8-bit fixed-point weights), scaled by the opacity. Reads and writes memory
/// the caller keeps alive and locked; rows are independent, so bands may be drawn concurrently.
private struct Sampler: @unchecked Sendable {
    let source: UnsafePointer<UInt8>
    let sourceStride: Int
    let output: UnsafeMutableRawPointer
    let outputStride: Int
    let width: Int
    /// The crop rectangle (source pixels): points outside are black.
    let minX: Double, maxX: Double, minY: Double, maxY: Double
    /// Pixel bounds sampling is clamped to (pixels the crop rectangle touches).
    let colLo: Int, colHi: Int, rowLo: Int, rowHi: Int
    /// The inverse transform (output → source).
    let a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double
    /// Opacity as 0…256.
    let gain: Int

    init(
        source: PixelBufferPlane, crop: CGRect, inverse m: CGAffineTransform, gain: Int, output: PixelBufferPlane,
        width: Int
    ) {
        self.source = UnsafePointer(source.baseAddress.assumingMemoryBound(to: UInt8.self))
        sourceStride = source.bytesPerRow
        self.output = output.baseAddress
        outputStride = output.bytesPerRow
        self.width = width
        (minX, maxX, minY, maxY) = (Double(crop.minX), Double(crop.maxX), Double(crop.minY), Double(crop.maxY))
        colLo = Int(minX.rounded(.down))
        colHi = max(colLo, Int(maxX.rounded(.up)) - 1)
        rowLo = Int(minY.rounded(.down))
        rowHi = max(rowLo, Int(maxY.rounded(.up)) - 1)
        (a, b, c, d, tx, ty) = (Double(m.a), Double(m.b), Double(m.c), Double(m.d), Double(m.tx), Double(m.ty))
        self.gain = min(max(gain, 0), 256)
    }

    func draw(rows: Range<Int>) {
        for y in rows {
            let row = output.advanced(by: y * outputStride).assumingMemoryBound(to: UInt8.self)
            let cy = Double(y) + 0.5
            // Source point of the centre of pixel x: (px + a·x, py + b·x).
            var px = a * 0.5 + c * cy + tx
            var py = b * 0.5 + d * cy + ty
            for x in 0..<width {
                let o = row + x * 4
                if px >= minX && px < maxX && py >= minY && py < maxY {
                    let u = px - 0.5
                    let v = py - 0.5
                    let fu = u.rounded(.down)
                    let fv = v.rounded(.down)
                    let wx = Int(((u - fu) * 256).rounded())
                    let wy = Int(((v - fv) * 256).rounded())
                    let x0 = min(max(Int(fu), colLo), colHi) * 4
                    let x1 = min(max(Int(fu) + 1, colLo), colHi) * 4
                    let r0 = source + min(max(Int(fv), rowLo), rowHi) * sourceStride
                    let r1 = source + min(max(Int(fv) + 1, rowLo), rowHi) * sourceStride
                    for channel in 0..<3 {
                        let top = Int(r0[x0 + channel]) * (256 - wx) + Int(r0[x1 + channel]) * wx
                        let bottom = Int(r1[x0 + channel]) * (256 - wx) + Int(r1[x1 + channel]) * wx
                        let value = (top * (256 - wy) + bottom * wy) * gain
                        o[channel] = UInt8(min((value + (1 << 23)) >> 24, 255))
                    }
                } else {
                    o[0] = 0
                    o[1] = 0
                    o[2] = 0
                }
                o[3] = 255
                px += a
                py += b
            }
        }
    }
}
