// Parsing of pixel-buffer attribute dictionaries (`kCVPixelBuffer...Key` entries).

/// The pixel-buffer attributes CoreVideo understands, read from an attribute dictionary such as the one passed to
/// `CVPixelBufferCreate`, `CVPixelBufferPoolCreate` or `AVPlayerItemVideoOutput(pixelBufferAttributes:)`.
/// Package API: the output layer uses it to resolve an app's requested formats.
///
/// Understood keys: `kCVPixelBufferPixelFormatTypeKey` (a number or an array of numbers, in order of
/// preference), `kCVPixelBufferWidthKey`, `kCVPixelBufferHeightKey`, `kCVPixelBufferBytesPerRowAlignmentKey`,
/// `kCVPixelBufferPlaneAlignmentKey`, `kCVBufferPropagatedAttachmentsKey` and
/// `kCVBufferNonPropagatedAttachmentsKey`. Other keys (IOSurface, Metal, OpenGL, CGImage compatibility, extended
/// pixels...) are accepted and ignored: on Linux every buffer is plain memory.
package struct PixelBufferAttributes: Sendable {
    /// Requested pixel formats, most preferred first; empty when the key is absent.
    package var pixelFormatTypes: [OSType] = []
    /// Requested width in pixels.
    package var width: Int?
    /// Requested height in pixels.
    package var height: Int?
    /// Requested row alignment in bytes.
    package var bytesPerRowAlignment: Int?
    /// Requested plane start alignment in bytes.
    package var planeAlignment: Int?
    /// Attachments every created buffer starts with, in `.shouldPropagate` mode.
    package var propagatedAttachments: [String: SendableObject] = [:]
    /// Attachments every created buffer starts with, in `.shouldNotPropagate` mode.
    package var nonPropagatedAttachments: [String: SendableObject] = [:]
    /// Every entry of the dictionary as given, for `CVPixelBufferPoolGetPixelBufferAttributes`.
    package var entries: [String: SendableObject] = [:]

    /// No attributes.
    package init() {}

    /// Reads an attribute dictionary.
    ///
    /// - Throws: `invalidPixelBufferAttributes` when a key CoreVideo understands has a value of the wrong type
    ///   (a pixel format that is not a number, a negative width...).
    package init(_ dictionary: [String: Any]?) throws(CoreVideoError) {
        guard let dictionary else { return }
        for (key, value) in dictionary {
            entries[key] = SendableObject(value)
        }
        if let value = dictionary[kCVPixelBufferPixelFormatTypeKey] {
            if let number = value as? NSNumber {
                pixelFormatTypes = [number.uint32Value]
            } else if let array = value as? [Any] {
                pixelFormatTypes = try array.map { (element) throws(CoreVideoError) -> OSType in
                    guard let number = element as? NSNumber else { throw .invalidPixelBufferAttributes }
                    return number.uint32Value
                }
            } else {
                throw .invalidPixelBufferAttributes
            }
        }
        width = try Self.positiveInteger(dictionary[kCVPixelBufferWidthKey])
        height = try Self.positiveInteger(dictionary[kCVPixelBufferHeightKey])
        bytesPerRowAlignment = try Self.positiveInteger(dictionary[kCVPixelBufferBytesPerRowAlignmentKey])
        planeAlignment = try Self.positiveInteger(dictionary[kCVPixelBufferPlaneAlignmentKey])
        propagatedAttachments = try Self.attachments(dictionary[kCVBufferPropagatedAttachmentsKey])
        nonPropagatedAttachments = try Self.attachments(dictionary[kCVBufferNonPropagatedAttachmentsKey])
    }

    /// Reads an attribute dictionary given as a `CFDictionary` (an `NSDictionary` on Linux).
    package init(_ dictionary: CFDictionary?) throws(CoreVideoError) {
        try self.init(Self.stringKeyed(dictionary))
    }

    /// Converts a CF dictionary to a Swift one, dropping keys that are not strings (CoreVideo has none).
    package static func stringKeyed(_ dictionary: CFDictionary?) -> [String: Any]? {
        guard let dictionary else { return nil }
        var result: [String: Any] = [:]
        for (key, value) in dictionary {
            if let key = key as? String {
                result[key] = value
            }
        }
        return result
    }

    /// Alignment values of 0 mean "default", as Apple treats them.
    private static func positiveInteger(_ value: Any?) throws(CoreVideoError) -> Int? {
        guard let value else { return nil }
        guard let number = value as? NSNumber, number.intValue >= 0 else { throw .invalidPixelBufferAttributes }
        return number.intValue == 0 ? nil : number.intValue
    }

    private static func attachments(_ value: Any?) throws(CoreVideoError) -> [String: SendableObject] {
        guard let value else { return [:] }
        let dictionary: [String: Any]?
        if let swiftDictionary = value as? [String: Any] {
            dictionary = swiftDictionary
        } else if let cfDictionary = value as? NSDictionary {
            dictionary = stringKeyed(cfDictionary)
        } else {
            dictionary = nil
        }
        guard let dictionary else { throw .invalidPixelBufferAttributes }
        return dictionary.mapValues { SendableObject($0) }
    }
}
