import CoreMedia
import Foundation

/// A decoded picture made into a still image: packed 8-bit B G R X pixels, already scaled and turned as asked.
package struct StillPicture: Sendable {
    /// The pixels: `height` rows of `bytesPerRow` bytes.
    package var bytes: Data
    /// Width in pixels.
    package var width: Int
    /// Height in pixels.
    package var height: Int
    /// Bytes from one row to the next.
    package var bytesPerRow: Int
    /// The presentation time of the decoded picture (container time).
    package var time: CMTime
}

/// How ``StillFrameExtractor`` picks and shapes pictures.
package struct StillPictureOptions: Sendable {
    /// How far before a requested time the answer may lie (`.positiveInfinity`: any earlier keyframe will do).
    package var toleranceBefore: CMTime = .positiveInfinity
    /// How far after a requested time the answer may lie.
    package var toleranceAfter: CMTime = .positiveInfinity
    /// The largest width of the finished (turned) picture in pixels; 0: no limit. The aspect ratio is kept; pictures
    /// are never enlarged.
    package var maximumWidth = 0
    /// The largest height of the finished picture in pixels; 0: no limit.
    package var maximumHeight = 0
    /// A fixed size for the finished picture before ``maximumWidth``/``maximumHeight`` (a video composition's
    /// render size); nil: the decoded size (with ``appliesPixelAspectRatio``).
    package var renderSize: (width: Int, height: Int)?
    /// Whether non-square pixels are stretched to square (the clean aperture's display size).
    package var appliesPixelAspectRatio = true
    /// Whether the picture is mirrored left to right before it is turned.
    package var mirrored = false
    /// Clockwise quarter turns applied after mirroring (0…3).
    package var quarterTurns = 0
    /// Whether pictures with a high-dynamic-range transfer (PQ, HLG) are tone-mapped to SDR BT.709
    /// (``VideoToneMapper``); otherwise they are converted as they are, values clipped.
    package var toneMapsHighDynamicRange = true

    /// Default options: keyframes answer, decoded size, no turn.
    package init() {}
}

extension StillPicture {
    /// `bytes` (B G R X, `width` x `height`, rows `bytesPerRow` apart) mirrored left to right (when `mirrored`) and
    /// then turned clockwise by `quarterTurns` quarter turns.
    static func turned(
        _ bytes: Data, width: Int, height: Int, bytesPerRow: Int, mirrored: Bool, quarterTurns: Int
    ) -> (bytes: Data, width: Int, height: Int, bytesPerRow: Int) {
        let turns = ((quarterTurns % 4) + 4) % 4
        if turns == 0 && !mirrored { return (bytes, width, height, bytesPerRow) }
        let (outWidth, outHeight) = turns % 2 == 1 ? (height, width) : (width, height)
        let outStride = (4 * outWidth + 63) & ~63
        var out = Data(count: outStride * outHeight)
        out.withUnsafeMutableBytes { target in
            bytes.withUnsafeBytes { source in
                let s = source.baseAddress!.assumingMemoryBound(to: UInt32.self)
                let d = target.baseAddress!.assumingMemoryBound(to: UInt32.self)
                let sourceWords = bytesPerRow / 4
                let targetWords = outStride / 4
                for y in 0..<outHeight {
                    for x in 0..<outWidth {
                        // The source pixel (after the mirror) that lands on (x, y).
                        var sx: Int
                        let sy: Int
                        switch turns {
                        case 1: (sx, sy) = (y, height - 1 - x)
                        case 2: (sx, sy) = (width - 1 - x, height - 1 - y)
                        case 3: (sx, sy) = (width - 1 - y, x)
                        default: (sx, sy) = (x, y)
                        }
                        if mirrored { sx = width - 1 - sx }
                        d[y * targetWords + x] = s[sy * sourceWords + sx]
                    }
                }
            }
        }
        return (out, outWidth, outHeight, outStride)
    }
}
