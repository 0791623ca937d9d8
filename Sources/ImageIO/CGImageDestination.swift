import FFmpegBridge
import Foundation
import OAVFLocking

/// Writes images to a file or a data object, as Apple's `CGImageDestination` (`CGImageDestinationCreateWithURL`,
/// `CGImageDestinationAddImage`, `CGImageDestinationFinalize`).
///
/// Types: PNG (`"public.png"`) and JPEG (`"public.jpeg"`), one image each; see
/// ``CGImageDestinationCopyTypeIdentifiers()``. Encoding happens in ``CGImageDestinationFinalize(_:)``, with FFmpeg's
/// encoders: PNG 8-bit RGB (RGBA when the image has alpha), JPEG 4:2:0 with the quality of
/// ``kCGImageDestinationLossyCompressionQuality`` (default 0.75). A file is written atomically.
///
/// Differs from Apple: metadata properties (EXIF, orientation …) are not written; a destination holds one image.
/// Thread-safe: a destination's state is behind a lock.
public final class CGImageDestination {
    /// Where the bytes go.
    enum Target {
        case url(URL)
        case data(NSMutableData)
    }

    /// What ``CGImageDestinationAddImage(_:_:_:)`` collected.
    private struct State {
        var images: [(image: CGImage, quality: Double?)] = []
        var quality: Double?
        var finalized = false
    }

    let type: String
    let capacity: Int
    private let target: Target
    /// Guards the collected images and the finalized flag (and the appending to a data target). Taken by whichever
    /// threads the app adds images and finalizes on; held only to copy state in or out, never while encoding. No
    /// engine here: a destination is a value the app owns, so there is no mailbox to post to.
    private let state: Locked<State>

    init(target: Target, type: String, capacity: Int, options: [String: Any]?) {
        self.target = target
        self.type = type
        self.capacity = capacity
        var s = State()
        s.quality = Self.quality(options)
        state = Locked(s)
    }

    /// The quality in a properties dictionary, if any.
    static func quality(_ properties: [String: Any]?) -> Double? {
        guard let value = properties?[kCGImageDestinationLossyCompressionQuality] else { return nil }
        if let d = value as? Double { return d }
        if let n = value as? NSNumber { return n.doubleValue }
        if let f = value as? CGFloat { return Double(f) }
        return nil
    }

    fileprivate func add(_ image: CGImage, properties: [String: Any]?) {
        state.withLock { s in
            guard !s.finalized, s.images.count < max(1, capacity) else { return }
            s.images.append((image, Self.quality(properties)))
        }
    }

    fileprivate func setProperties(_ properties: [String: Any]?) {
        if let q = Self.quality(properties) { state.withLock { $0.quality = q } }
    }

    /// Encodes the image and writes it; false when there is no image, it cannot be encoded, or it cannot be written.
    fileprivate func finalize() -> Bool {
        let taken: (CGImage, Double?)? = state.withLock { s in
            guard !s.finalized, let first = s.images.first else { return nil }
            s.finalized = true
            return (first.image, first.quality ?? s.quality)
        }
        guard let (image, quality) = taken, let format = ImageType(identifier: type)?.format(quality: quality),
            let bytes = try? Self.encode(image, as: format)
        else { return false }
        switch target {
        case .url(let url):
            do {
                try Data(bytes).write(to: url, options: .atomic)
            } catch {
                return false
            }
        case .data(let data):
            state.withLock { _ in data.append(bytes, length: bytes.count) }
        }
        return true
    }

    /// The file bytes of `image` in `format`.
    static func encode(_ image: CGImage, as format: ImageWriter.StillFormat) throws -> [UInt8] {
        guard let offsets = image.oavfComponentOffsets else { throw CocoaError(.fileWriteUnknown) }
        let layout = ImageWriter.PackedLayout(
            width: image.width, height: image.height, bytesPerRow: image.bytesPerRow,
            bytesPerPixel: image.bitsPerPixel / 8, red: offsets.red, green: offsets.green, blue: offsets.blue,
            alpha: image.oavfHasAlpha ? offsets.alpha : nil)
        return try image.oavfBytes.withUnsafeBytes { pixels in
            try ImageWriter.encode(pixels: pixels, layout: layout, as: format)
        }
    }
}

/// The image types a destination writes.
enum ImageType {
    case png
    case jpeg

    /// The type for a uniform type identifier (`public.png`, `public.jpeg`; `public.jpg` is accepted too).
    init?(identifier: String) {
        switch identifier.lowercased() {
        case "public.png": self = .png
        case "public.jpeg", "public.jpg": self = .jpeg
        default: return nil
        }
    }

    /// The encoder format; JPEG quality defaults to 0.75.
    func format(quality: Double?) -> ImageWriter.StillFormat {
        switch self {
        case .png: return .png
        case .jpeg: return .jpeg(quality: quality ?? 0.75)
        }
    }
}

/// The quality of lossy compression, 0.0 (smallest) to 1.0 (best), as a `CFNumber` in the options or properties
/// (Apple's `kCGImageDestinationLossyCompressionQuality`).
public let kCGImageDestinationLossyCompressionQuality: CFString = "kCGImageDestinationLossyCompressionQuality"

/// A destination writing `count` images of `type` (`"public.png"`, `"public.jpeg"`) to the file at `url`; nil for a
/// type this implementation does not write or a URL that is not a file URL.
public func CGImageDestinationCreateWithURL(
    _ url: CFURL, _ type: CFString, _ count: Int, _ options: CFDictionary?
) -> CGImageDestination? {
    let fileURL = url as URL
    guard fileURL.isFileURL, ImageType(identifier: type) != nil, count >= 1 else { return nil }
    return CGImageDestination(
        target: .url(fileURL), type: type, capacity: count, options: options as? [String: Any])
}

/// A destination appending the encoded file's bytes to `data`; nil for a type this implementation does not write.
public func CGImageDestinationCreateWithData(
    _ data: CFMutableData, _ type: CFString, _ count: Int, _ options: CFDictionary?
) -> CGImageDestination? {
    guard ImageType(identifier: type) != nil, count >= 1 else { return nil }
    return CGImageDestination(target: .data(data), type: type, capacity: count, options: options as? [String: Any])
}

/// Adds `image` to `idst`, with properties (``kCGImageDestinationLossyCompressionQuality`` is read). Images past the
/// destination's count are ignored.
public func CGImageDestinationAddImage(_ idst: CGImageDestination, _ image: CGImage, _ properties: CFDictionary?) {
    idst.add(image, properties: properties as? [String: Any])
}

/// Sets properties for the whole destination (``kCGImageDestinationLossyCompressionQuality`` is read).
public func CGImageDestinationSetProperties(_ idst: CGImageDestination, _ properties: CFDictionary?) {
    idst.setProperties(properties as? [String: Any])
}

/// Encodes and writes the destination's image; false when it holds none, the image cannot be encoded or the file
/// cannot be written. Later calls return false.
public func CGImageDestinationFinalize(_ idst: CGImageDestination) -> Bool {
    idst.finalize()
}

/// The type identifiers destinations write (Apple's `CGImageDestinationCopyTypeIdentifiers()`).
public func CGImageDestinationCopyTypeIdentifiers() -> CFArray {
    ["public.png", "public.jpeg"] as CFArray
}
