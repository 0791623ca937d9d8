/// How an image is to be turned for display, in EXIF's numbering (Apple's `CGImagePropertyOrientation`).
public enum CGImagePropertyOrientation: UInt32, Sendable {
    /// As stored (EXIF 1).
    case up = 1
    /// Mirrored left to right (EXIF 2).
    case upMirrored = 2
    /// Turned 180° (EXIF 3).
    case down = 3
    /// Mirrored top to bottom (EXIF 4).
    case downMirrored = 4
    /// Mirrored along the main diagonal (EXIF 5).
    case leftMirrored = 5
    /// Stored turned 90° counter-clockwise: shown turned 90° clockwise (EXIF 6).
    case right = 6
    /// Mirrored along the other diagonal (EXIF 7).
    case rightMirrored = 7
    /// Stored turned 90° clockwise: shown turned 90° counter-clockwise (EXIF 8).
    case left = 8
}
