import CoreMedia
import Foundation

/// A key in a metadata key space (Apple's `AVMetadataKey`); common keys have Apple's raw values.
public struct AVMetadataKey: RawRepresentable, Hashable, Sendable {
    /// The string Apple's framework uses for this value.
    public let rawValue: String
    /// Creates a value from its raw value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a value from its raw value (the unlabelled form of ``init(rawValue:)``).
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The common key for the title (`title`).
    public static let commonKeyTitle = AVMetadataKey(rawValue: "title")
    /// The common key for the creator (`creator`).
    public static let commonKeyCreator = AVMetadataKey(rawValue: "creator")
    /// The common key for the subject (`subject`).
    public static let commonKeySubject = AVMetadataKey(rawValue: "subject")
    /// The common key for the description (`description`).
    public static let commonKeyDescription = AVMetadataKey(rawValue: "description")
    /// The common key for the publisher (`publisher`).
    public static let commonKeyPublisher = AVMetadataKey(rawValue: "publisher")
    /// The common key for the contributor (`contributor`).
    public static let commonKeyContributor = AVMetadataKey(rawValue: "contributor")
    /// The common key for the creation date (`creationDate`).
    public static let commonKeyCreationDate = AVMetadataKey(rawValue: "creationDate")
    /// The common key for the last modified date (`lastModifiedDate`).
    public static let commonKeyLastModifiedDate = AVMetadataKey(rawValue: "lastModifiedDate")
    /// The common key for the type (`type`).
    public static let commonKeyType = AVMetadataKey(rawValue: "type")
    /// The common key for the format (`format`).
    public static let commonKeyFormat = AVMetadataKey(rawValue: "format")
    /// The common key for the identifier (`identifier`).
    public static let commonKeyIdentifier = AVMetadataKey(rawValue: "identifier")
    /// The common key for the source (`source`).
    public static let commonKeySource = AVMetadataKey(rawValue: "source")
    /// The common key for the language (`language`).
    public static let commonKeyLanguage = AVMetadataKey(rawValue: "language")
    /// The common key for the relation (`relation`).
    public static let commonKeyRelation = AVMetadataKey(rawValue: "relation")
    /// The common key for the location (`location`).
    public static let commonKeyLocation = AVMetadataKey(rawValue: "location")
    /// The common key for the copyrights (`copyrights`).
    public static let commonKeyCopyrights = AVMetadataKey(rawValue: "copyrights")
    /// The common key for the album name (`albumName`).
    public static let commonKeyAlbumName = AVMetadataKey(rawValue: "albumName")
    /// The common key for the author (`author`).
    public static let commonKeyAuthor = AVMetadataKey(rawValue: "author")
    /// The common key for the artist (`artist`).
    public static let commonKeyArtist = AVMetadataKey(rawValue: "artist")
    /// The common key for the artwork (`artwork`).
    public static let commonKeyArtwork = AVMetadataKey(rawValue: "artwork")
    /// The common key for the make (`make`).
    public static let commonKeyMake = AVMetadataKey(rawValue: "make")
    /// The common key for the model (`model`).
    public static let commonKeyModel = AVMetadataKey(rawValue: "model")
    /// The common key for the software (`software`).
    public static let commonKeySoftware = AVMetadataKey(rawValue: "software")
}

/// A metadata key space, with Apple's raw values.
public struct AVMetadataKeySpace: RawRepresentable, Hashable, Sendable {
    /// The string Apple's framework uses for this value.
    public let rawValue: String
    /// Creates a value from its raw value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a value from its raw value (the unlabelled form of ``init(rawValue:)``).
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The common key space, shared by every container (`comn`).
    public static let common = AVMetadataKeySpace(rawValue: "comn")
    /// QuickTime user data (`udta`).
    public static let quickTimeUserData = AVMetadataKeySpace(rawValue: "udta")
    /// ISO user data (`uiso`).
    public static let isoUserData = AVMetadataKeySpace(rawValue: "uiso")
    /// QuickTime metadata (`mdta`).
    public static let quickTimeMetadata = AVMetadataKeySpace(rawValue: "mdta")
    /// iTunes metadata, used for MP4 and MOV files here (`itsk`).
    public static let iTunes = AVMetadataKeySpace(rawValue: "itsk")
    /// ID3 metadata, used for MP3 files (`org.id3`).
    public static let id3 = AVMetadataKeySpace(rawValue: "org.id3")
    /// SHOUTcast (ICY) stream metadata (`icy`).
    public static let icy = AVMetadataKeySpace(rawValue: "icy")
    /// HTTP Live Streaming date ranges (`lsdr`).
    public static let hlsDateRange = AVMetadataKeySpace(rawValue: "lsdr")
    /// Not Apple's: metadata of containers Apple does not read (Matroska, Ogg, WAV, FLAC …), keyed
    /// by FFmpeg's own tag names ("title", "artist", "creation_time" …).
    public static let ffmpeg = AVMetadataKeySpace(rawValue: "org.ffmpeg")
}

/// A metadata format (`availableMetadataFormats`), with Apple's raw values.
public struct AVMetadataFormat: RawRepresentable, Hashable, Sendable {
    /// The string Apple's framework uses for this value.
    public let rawValue: String
    /// Creates a value from its raw value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a value from its raw value (the unlabelled form of ``init(rawValue:)``).
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// QuickTime user data (`com.apple.quicktime.udta`).
    public static let quickTimeUserData = AVMetadataFormat(rawValue: "com.apple.quicktime.udta")
    /// ISO user data (`org.mp4ra`).
    public static let isoUserData = AVMetadataFormat(rawValue: "org.mp4ra")
    /// QuickTime metadata (`com.apple.quicktime.mdta`).
    public static let quickTimeMetadata = AVMetadataFormat(rawValue: "com.apple.quicktime.mdta")
    /// iTunes metadata (`com.apple.itunes`).
    public static let iTunesMetadata = AVMetadataFormat(rawValue: "com.apple.itunes")
    /// ID3 metadata (`org.id3`).
    public static let id3Metadata = AVMetadataFormat(rawValue: "org.id3")
    /// HTTP Live Streaming metadata (`com.apple.quicktime.HLS`).
    public static let hlsMetadata = AVMetadataFormat(rawValue: "com.apple.quicktime.HLS")
    /// An unknown format (`com.apple.unknown`).
    public static let unknown = AVMetadataFormat(rawValue: "com.apple.unknown")
    /// Not Apple's: see ``AVMetadataKeySpace/ffmpeg``.
    public static let ffmpeg = AVMetadataFormat(rawValue: "org.ffmpeg")
}

/// A "key space/key" identifier (`"common/title"`, `"itsk/%A9nam"` …), as Apple's.
public struct AVMetadataIdentifier: RawRepresentable, Hashable, Sendable {
    /// The string Apple's framework uses for this value.
    public let rawValue: String
    /// Creates a value from its raw value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a value from its raw value (the unlabelled form of ``init(rawValue:)``).
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The identifier of the common title item (`common/title`).
    public static let commonIdentifierTitle = AVMetadataIdentifier(rawValue: "common/title")
    /// The identifier of the common creator item (`common/creator`).
    public static let commonIdentifierCreator = AVMetadataIdentifier(rawValue: "common/creator")
    /// The identifier of the common subject item (`common/subject`).
    public static let commonIdentifierSubject = AVMetadataIdentifier(rawValue: "common/subject")
    /// The identifier of the common description item (`common/description`).
    public static let commonIdentifierDescription = AVMetadataIdentifier(rawValue: "common/description")
    /// The identifier of the common publisher item (`common/publisher`).
    public static let commonIdentifierPublisher = AVMetadataIdentifier(rawValue: "common/publisher")
    /// The identifier of the common creation date item (`common/creationDate`).
    public static let commonIdentifierCreationDate = AVMetadataIdentifier(rawValue: "common/creationDate")
    /// The identifier of the common type item (`common/type`).
    public static let commonIdentifierType = AVMetadataIdentifier(rawValue: "common/type")
    /// The identifier of the common language item (`common/language`).
    public static let commonIdentifierLanguage = AVMetadataIdentifier(rawValue: "common/language")
    /// The identifier of the common copyrights item (`common/copyrights`).
    public static let commonIdentifierCopyrights = AVMetadataIdentifier(rawValue: "common/copyrights")
    /// The identifier of the common album name item (`common/albumName`).
    public static let commonIdentifierAlbumName = AVMetadataIdentifier(rawValue: "common/albumName")
    /// The identifier of the common author item (`common/author`).
    public static let commonIdentifierAuthor = AVMetadataIdentifier(rawValue: "common/author")
    /// The identifier of the common artist item (`common/artist`).
    public static let commonIdentifierArtist = AVMetadataIdentifier(rawValue: "common/artist")
    /// The identifier of the common artwork item (`common/artwork`).
    public static let commonIdentifierArtwork = AVMetadataIdentifier(rawValue: "common/artwork")
    /// The identifier of the common software item (`common/software`).
    public static let commonIdentifierSoftware = AVMetadataIdentifier(rawValue: "common/software")

    /// Apple's `AVMetadataItem.identifier(forKey:keySpace:)` spelling: key space, "/", key with
    /// characters outside printable ASCII and "/" percent-escaped.
    static func make(keySpace: AVMetadataKeySpace, key: String) -> AVMetadataIdentifier {
        // Key bytes as the key space stores them: Latin-1 for one-byte characters (iTunes "©nam" is
        // 0xA9 "nam" → "%A9nam"), UTF-8 otherwise.
        var escaped = ""
        for scalar in key.unicodeScalars {
            let v = scalar.value
            if v >= 0x20 && v < 0x7f && scalar != "/" && scalar != "%" {
                escaped.unicodeScalars.append(scalar)
            } else if v < 0x100 {
                escaped += String(format: "%%%02X", v)
            } else {
                for byte in String(scalar).utf8 { escaped += String(format: "%%%02X", byte) }
            }
        }
        return AVMetadataIdentifier(rawValue: "\(keySpace.rawValue)/\(escaped)")
    }
}

/// One piece of metadata: a key in a key space and its value.
///
/// Values are strings as the container stores them; `dateValue` parses ISO 8601 dates and years,
/// `numberValue` parses numbers. Items are immutable and fully loaded at creation, so the
/// asynchronous loading API returns at once.
open class AVMetadataItem: NSObject, @unchecked Sendable {
    /// The item's identifier: its key space and key.
    public let identifier: AVMetadataIdentifier?
    /// The item's key space.
    public let keySpace: AVMetadataKeySpace?
    /// The item's common key, when its key has one.
    public let commonKey: AVMetadataKey?
    /// The item's language (BCP 47), if any.
    public let extendedLanguageTag: String?
    /// The item's time: `.invalid` for metadata of the whole asset.
    public let time: CMTime
    /// The item's duration: `.invalid` for metadata of the whole asset.
    public let duration: CMTime
    private let rawKey: String
    private let rawValue: String
    /// The value's data type (Apple's `kCMMetadataBaseDataType_*` strings).
    public let dataType: String?

    init(keySpace: AVMetadataKeySpace, key: String, value: String, commonKey: AVMetadataKey?, language: String? = nil) {
        self.keySpace = keySpace
        self.rawKey = key
        self.rawValue = value
        self.commonKey = commonKey
        self.identifier = .make(keySpace: keySpace, key: key)
        self.extendedLanguageTag = language
        self.time = .invalid
        self.duration = .invalid
        self.dataType = "com.apple.metadata.datatype.UTF-8"
    }

    /// The key as the key space defines it (a string here).
    public var key: (any NSCopying & NSObjectProtocol)? { NSString(string: rawKey) }
    /// The value (a string here).
    public var value: (any NSCopying & NSObjectProtocol)? { NSString(string: rawValue) }
    /// The value as a string.
    public var stringValue: String? { rawValue }
    /// The value as a number, when it reads as one.
    public var numberValue: NSNumber? {
        if let i = Int64(rawValue.trimmingCharacters(in: .whitespaces)) { return NSNumber(value: i) }
        if let d = Double(rawValue.trimmingCharacters(in: .whitespaces)) { return NSNumber(value: d) }
        return nil
    }
    /// The value as a date, when it reads as one (ISO 8601, or a year).
    public var dateValue: Date? { Self.parseDate(rawValue) }
    /// The value as UTF-8 data.
    public var dataValue: Data? { Data(rawValue.utf8) }
    /// The locale of the item's language, if any.
    public var locale: Locale? { extendedLanguageTag.map { Locale(identifier: $0) } }
    /// Extra attributes: always nil.
    public var extraAttributes: [AVMetadataExtraAttributeKey: Any]? { nil }

    /// Items with the given key and key space (nil matches any), as Apple's class method.
    open class func metadataItems(
        from metadataItems: [AVMetadataItem], withKey key: Any?, keySpace: AVMetadataKeySpace?
    ) -> [AVMetadataItem] {
        metadataItems.filter { item in
            if let keySpace, item.keySpace != keySpace { return false }
            if let key {
                let wanted =
                    (key as? String) ?? (key as? NSString).map { String($0) } ?? (key as? AVMetadataKey)?.rawValue
                guard let wanted else { return false }
                // A common-key-space query matches items by their common key.
                let matches = item.rawKey == wanted || (keySpace == .common && item.commonKey?.rawValue == wanted)
                if !matches { return false }
            }
            return true
        }
    }

    /// The items of an array that have a key in a key space.
    open class func metadataItems(
        from metadataItems: [AVMetadataItem], filteredByIdentifier identifier: AVMetadataIdentifier
    ) -> [AVMetadataItem] {
        metadataItems.filter { $0.identifier == identifier || $0.commonIdentifier == identifier }
    }

    /// The items of an array that have an identifier.
    open class func metadataItems(
        from metadataItems: [AVMetadataItem],
        filteredAndSortedAccordingToPreferredLanguages preferredLanguages: [String]
    ) -> [AVMetadataItem] {
        var result: [AVMetadataItem] = []
        for language in preferredLanguages {
            let prefix = language.split(separator: "-").first.map(String.init) ?? language
            result += metadataItems.filter {
                !result.contains($0) && ($0.extendedLanguageTag?.hasPrefix(prefix) ?? false)
            }
        }
        return result
    }

    /// The identifier of a key in a key space.
    open class func identifier(forKey key: Any, keySpace: AVMetadataKeySpace) -> AVMetadataIdentifier? {
        guard let k = (key as? String) ?? (key as? NSString).map({ String($0) }) else { return nil }
        return .make(keySpace: keySpace, key: k)
    }

    var commonIdentifier: AVMetadataIdentifier? {
        commonKey.map { AVMetadataIdentifier(rawValue: "common/\($0.rawValue)") }
    }

    static func parseDate(_ s: String) -> Date? {
        let trimmed = s.trimmingCharacters(in: .whitespaces)
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = iso.date(from: trimmed) { return d }
        iso.formatOptions = [.withInternetDateTime]
        if let d = iso.date(from: trimmed) { return d }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        for format in ["yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd", "yyyy"] {
            f.dateFormat = format
            if let d = f.date(from: trimmed) { return d }
        }
        return nil
    }

    /// A description for debugging.
    open override var description: String {
        "<AVMetadataItem identifier=\(identifier?.rawValue ?? "nil") value=\(rawValue)>"
    }
}

/// Keys of `AVMetadataItem.extraAttributes`.
public struct AVMetadataExtraAttributeKey: RawRepresentable, Hashable, Sendable {
    /// The string Apple's framework uses for this value.
    public let rawValue: String
    /// Creates a value from its raw value.
    public init(rawValue: String) { self.rawValue = rawValue }
}

extension AVMetadataItem {
    /// Container tags (FFmpeg names) → Apple's common keys.
    private static let commonKeys: [String: AVMetadataKey] = [
        "title": .commonKeyTitle, "artist": .commonKeyArtist, "album": .commonKeyAlbumName,
        "album_artist": .commonKeyAuthor, "composer": .commonKeyCreator, "creation_time": .commonKeyCreationDate,
        "date": .commonKeyCreationDate, "comment": .commonKeyDescription, "description": .commonKeyDescription,
        "copyright": .commonKeyCopyrights, "encoder": .commonKeySoftware, "publisher": .commonKeyPublisher,
        "genre": .commonKeyType, "language": .commonKeyLanguage, "location": .commonKeyLocation,
        "make": .commonKeyMake, "model": .commonKeyModel,
    ]
    /// FFmpeg tag → iTunes atom name (MP4/M4A/MOV).
    private static let iTunesKeys: [String: String] = [
        "title": "\u{a9}nam", "artist": "\u{a9}ART", "album": "\u{a9}alb", "album_artist": "aART",
        "composer": "\u{a9}wrt", "date": "\u{a9}day", "comment": "\u{a9}cmt", "genre": "\u{a9}gen",
        "copyright": "cprt", "encoder": "\u{a9}too", "description": "desc", "track": "trkn", "disc": "disk",
    ]
    /// FFmpeg tag → ID3v2 frame (MP3).
    private static let id3Keys: [String: String] = [
        "title": "TIT2", "artist": "TPE1", "album": "TALB", "album_artist": "TPE2", "composer": "TCOM",
        "date": "TDRC", "comment": "COMM", "genre": "TCON", "copyright": "TCOP", "encoder": "TSSE",
        "track": "TRCK", "disc": "TPOS", "publisher": "TPUB", "language": "TLAN",
    ]

    /// Items for a container's tags: format-specific key space where Apple has one, and
    /// ``AVMetadataKeySpace/ffmpeg`` otherwise.
    static func items(
        fromContainer tags: [String: String], formatName: String
    ) -> (
        items: [AVMetadataItem], format: AVMetadataFormat
    ) {
        let isMP4 = formatName.contains("mp4") || formatName.contains("mov")
        let isMP3 = formatName == "mp3"
        var items: [AVMetadataItem] = []
        for (tag, value) in tags.sorted(by: { $0.key < $1.key }) {
            if tag.hasPrefix("major_brand") || tag == "minor_version" || tag == "compatible_brands" { continue }
            let common = commonKeys[tag]
            if isMP4 {
                if tag == "creation_time" {
                    items.append(
                        AVMetadataItem(
                            keySpace: .quickTimeMetadata, key: "com.apple.quicktime.creationdate",
                            value: value, commonKey: common))
                } else {
                    items.append(
                        AVMetadataItem(keySpace: .iTunes, key: iTunesKeys[tag] ?? tag, value: value, commonKey: common))
                }
            } else if isMP3 {
                items.append(AVMetadataItem(keySpace: .id3, key: id3Keys[tag] ?? tag, value: value, commonKey: common))
            } else {
                items.append(AVMetadataItem(keySpace: .ffmpeg, key: tag, value: value, commonKey: common))
            }
        }
        let format: AVMetadataFormat = isMP4 ? .iTunesMetadata : isMP3 ? .id3Metadata : .ffmpeg
        return (items, format)
    }

    /// The common-key-space view of items (Apple's `commonMetadata`): one item per common key.
    static func commonItems(from items: [AVMetadataItem]) -> [AVMetadataItem] {
        var seen = Set<AVMetadataKey>()
        var result: [AVMetadataItem] = []
        for item in items {
            guard let key = item.commonKey, !seen.contains(key) else { continue }
            seen.insert(key)
            result.append(
                AVMetadataItem(
                    keySpace: .common, key: key.rawValue, value: item.rawValue, commonKey: key,
                    language: item.extendedLanguageTag))
        }
        return result
    }
}
