import Foundation

// File names made from a type, as Apple's UniformTypeIdentifiers adds them to Foundation's URL.
extension URL {
    /// This URL with `partialName` appended as its last path component, given `contentType`'s preferred filename
    /// extension unless `partialName` already has an extension of that type (`puppy.jpg` stays `puppy.jpg` for
    /// `.jpeg`, `puppy` becomes `puppy.jpeg`).
    public func appendingPathComponent(_ partialName: String, conformingTo contentType: UTType) -> URL {
        appendingPathComponent(partialName).appendingPathExtension(for: contentType)
    }

    /// This URL with `contentType`'s preferred filename extension appended, unless its last path component already has
    /// an extension of that type or the type has no extension.
    public func appendingPathExtension(for contentType: UTType) -> URL {
        let current = pathExtension
        if !current.isEmpty, UTType(filenameExtension: current, conformingTo: contentType) != nil { return self }
        guard let preferred = contentType.preferredFilenameExtension else { return self }
        return appendingPathExtension(preferred)
    }

    /// Appends `partialName` as the last path component, with `contentType`'s preferred filename extension unless it
    /// already has one of that type.
    public mutating func appendPathComponent(_ partialName: String, conformingTo contentType: UTType) {
        self = appendingPathComponent(partialName, conformingTo: contentType)
    }

    /// Appends `contentType`'s preferred filename extension unless the last path component already has one of that
    /// type.
    public mutating func appendPathExtension(for contentType: UTType) {
        self = appendingPathExtension(for: contentType)
    }
}
