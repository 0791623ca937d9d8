// UniformTypeIdentifiers: Apple's `UTType` (and `UTTagClass`) for the types media and image apps name — what
// `CGImageDestinationCreateWithURL(url as CFURL, UTType.png.identifier as CFString, 1, nil)`, a file picker's
// `UTType(filenameExtension:)` or a server's `preferredMIMEType` need. The declarations (identifiers, conformance,
// filename extensions and MIME types) are in UTTypeCatalogue.swift; the static types in UTType+Core.swift.
import Foundation

/// A type of data — a file format, or an abstract type such as `public.movie` — as Apple's `UTType`.
///
/// Each type has an ``identifier`` (a uniform type identifier such as `public.png`), conforms to the types it is
/// declared to conform to (``conforms(to:)``, ``supertypes``) and carries tags: filename extensions and MIME types
/// (``tags``, ``preferredFilenameExtension``, ``preferredMIMEType``). Look types up by identifier (``init(_:)``), by
/// filename extension (``init(filenameExtension:conformingTo:)``) or MIME type (``init(mimeType:conformingTo:)``).
///
/// Differs from Apple: the types known are the system types this package declares (images, audio, video,
/// playlists, text and the base types above them — see UTTypeCatalogue.swift), not the whole system's and no app's
/// own declarations; a tag no known type carries gives nil where Apple may return a dynamic (`dyn.`) type;
/// `localizedDescription`, `version`, `referenceURL` and `init(exportedAs:)` / `init(importedAs:)` are not provided.
/// A type decoded from an archive keeps an identifier it does not know, as an undeclared type conforming only to
/// itself. ``debugDescription`` is not Apple's text.
public struct UTType: Sendable {
    /// The type's identifier, such as `public.png`.
    public let identifier: String

    /// The type's declaration, nil for an identifier this package does not declare (from a decoder).
    let declaration: UTTypeDeclaration?

    /// A type known to the catalogue.
    init(declared: UTTypeDeclaration) {
        identifier = declared.identifier
        declaration = declared
    }

    /// A type this package does not declare (decoded from an archive): conforms only to itself, carries no tags.
    init(undeclared identifier: String) {
        self.identifier = identifier
        declaration = nil
    }

    /// The type with `identifier` (any letter case); nil when no such type is declared.
    public init?(_ identifier: String) {
        guard let declared = UTTypeCatalogue.declaration(identifier) else { return nil }
        self.init(declared: declared)
    }

    /// The preferred type carrying `tag` in `tagClass` (a filename extension or MIME type, any letter case) that
    /// conforms to `supertype` (any type when nil); nil when no declared type does.
    public init?(tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) {
        guard let first = Self.types(tag: tag, tagClass: tagClass, conformingTo: supertype).first else { return nil }
        self = first
    }

    /// Every declared type carrying `tag` in `tagClass` that conforms to `supertype` (any type when nil), the
    /// preferred one first: a type before the types it conforms to, otherwise in declaration order.
    public static func types(tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) -> [UTType] {
        let matches = UTTypeCatalogue.declarations(tag: tag, tagClass: tagClass).map(UTType.init(declared:))
            .filter { supertype.map($0.conforms(to:)) ?? true }
        // Most specific first: a type goes before every type it conforms to (stable otherwise).
        var ordered: [UTType] = []
        for type in matches {
            if let at = ordered.firstIndex(where: { type.conforms(to: $0) }) {
                ordered.insert(type, at: at)
            } else {
                ordered.append(type)
            }
        }
        return ordered
    }

    /// The type's tags: filename extensions and MIME types, each class in order of preference.
    public var tags: [UTTagClass: [String]] {
        guard let declaration else { return [:] }
        var tags: [UTTagClass: [String]] = [:]
        if !declaration.filenameExtensions.isEmpty { tags[.filenameExtension] = declaration.filenameExtensions }
        if !declaration.mimeTypes.isEmpty { tags[.mimeType] = declaration.mimeTypes }
        return tags
    }

    /// The preferred filename extension (without the dot), such as `png`; nil when the type has none.
    public var preferredFilenameExtension: String? { declaration?.filenameExtensions.first }

    /// The preferred MIME type, such as `image/png`; nil when the type has none.
    public var preferredMIMEType: String? { declaration?.mimeTypes.first }

    /// Whether the type is declared (every type this module returns but one decoded with an unknown identifier).
    public var isDeclared: Bool { declaration != nil }

    /// Whether the identifier is a dynamic one (`dyn.…`), made up by a system for a tag no type declares.
    public var isDynamic: Bool { identifier.lowercased().hasPrefix("dyn.") }

    /// Whether the type is in the reserved `public` domain (its identifier begins with `public.`).
    public var isPublic: Bool { identifier.lowercased().hasPrefix("public.") }

    /// Whether the type is `type` or conforms to it, directly or through its supertypes.
    public func conforms(to type: UTType) -> Bool {
        self == type || supertypes.contains(type)
    }

    /// Whether `type` conforms to this type and is not this type.
    public func isSupertype(of type: UTType) -> Bool { type.isSubtype(of: self) }

    /// Whether this type conforms to `type` and is not `type`.
    public func isSubtype(of type: UTType) -> Bool { self != type && conforms(to: type) }

    /// Every type this type conforms to, directly or indirectly (not the type itself).
    public var supertypes: Set<UTType> {
        var found: Set<UTType> = []
        var pending = declaration?.conformsTo ?? []
        while let next = pending.popLast() {
            guard let declared = UTTypeCatalogue.declaration(next) else { continue }
            if found.insert(UTType(declared: declared)).inserted { pending += declared.conformsTo }
        }
        return found
    }
}

extension UTType {
    /// The preferred declared type for `filenameExtension` (without the dot, any letter case) that conforms to
    /// `supertype`; nil when no declared type carries the extension.
    public init?(filenameExtension: String, conformingTo supertype: UTType = .data) {
        self.init(tag: filenameExtension, tagClass: .filenameExtension, conformingTo: supertype)
    }

    /// The preferred declared type for `mimeType` (any letter case) that conforms to `supertype`; nil when no declared
    /// type carries the MIME type.
    public init?(mimeType: String, conformingTo supertype: UTType = .data) {
        self.init(tag: mimeType, tagClass: .mimeType, conformingTo: supertype)
    }
}

extension UTType: Hashable {
    /// Types are equal when their identifiers are, ignoring letter case (as uniform type identifiers compare).
    public static func == (lhs: UTType, rhs: UTType) -> Bool {
        lhs.identifier.lowercased() == rhs.identifier.lowercased()
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifier.lowercased())
    }
}

extension UTType: CustomStringConvertible, CustomDebugStringConvertible {
    /// The identifier.
    public var description: String { identifier }

    /// The identifier with the preferred tags, such as `public.png (png, image/png)`.
    public var debugDescription: String {
        let preferred = [preferredFilenameExtension, preferredMIMEType].compactMap { $0 }
        let undeclared = isDeclared ? "" : " (undeclared)"
        return preferred.isEmpty ? identifier + undeclared : "\(identifier) (\(preferred.joined(separator: ", ")))"
    }
}

extension UTType: Codable {
    /// Decodes the identifier; a declared type comes back whole, another as an undeclared type with that identifier.
    public init(from decoder: any Decoder) throws {
        let identifier = try decoder.singleValueContainer().decode(String.self)
        if let declared = UTTypeCatalogue.declaration(identifier) {
            self.init(declared: declared)
        } else {
            self.init(undeclared: identifier)
        }
    }

    /// Encodes the identifier (a single string).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(identifier)
    }
}

/// A class of tags a type carries, as Apple's `UTTagClass`: filename extensions or MIME types.
public struct UTTagClass: RawRepresentable, Hashable, Sendable {
    /// The tag class's identifier, such as `public.filename-extension`.
    public let rawValue: String

    /// The tag class with this identifier.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Filename extensions, without the leading dot (`public.filename-extension`).
    public static let filenameExtension = UTTagClass(rawValue: "public.filename-extension")

    /// MIME types (`public.mime-type`).
    public static let mimeType = UTTagClass(rawValue: "public.mime-type")
}
