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
        // The common key space ("comn") is spelled "common" in identifiers, as Apple's `commonIdentifier…` are.
        let space = keySpace == .common ? "common" : keySpace.rawValue
        return AVMetadataIdentifier(rawValue: "\(space)/\(escaped)")
    }
}

/// One piece of metadata: a key in a key space and its value.
///
/// Values are typed as on Apple's systems: text as `NSString` (`stringValue`), integer atoms (iTunes `tmpo`, `cpil`,
/// `rtng` …) as `NSNumber` (`numberValue`), with ``dataType`` naming the type (`kCMMetadataBaseDataType_*`).
/// `dateValue` parses ISO 8601 dates and years; `numberValue` also parses numeric text. Items read from an asset are
/// immutable and fully loaded at creation, so the asynchronous loading API returns at once;
/// ``AVMutableMetadataItem`` makes items of one's own.
///
/// Cover art (an attached picture stream in FFmpeg's view) is an item whose value is the image bytes.
open class AVMetadataItem: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    /// The item's fields (immutable for this class; ``AVMutableMetadataItem`` changes them under `lock`).
    struct Fields {
        var identifier: AVMetadataIdentifier?
        var keySpace: AVMetadataKeySpace?
        var key: (any NSCopying & NSObjectProtocol)?
        var commonKey: AVMetadataKey?
        var extendedLanguageTag: String?
        var time = CMTime.invalid
        var duration = CMTime.invalid
        var startDate: Date?
        var value: (any NSCopying & NSObjectProtocol)?
        var dataType: String?
        var extraAttributes: [AVMetadataExtraAttributeKey: Any]?
    }

    let lock = NSLock()
    /// Guarded by `lock`.
    var fields: Fields

    init(fields: Fields) {
        self.fields = fields
        super.init()
    }

    /// An item read from a container: the tag's text, typed as the key space types it.
    init(keySpace: AVMetadataKeySpace, key: String, value: String, commonKey: AVMetadataKey?, language: String? = nil) {
        var f = Fields()
        f.keySpace = keySpace
        f.key = NSString(string: key)
        f.commonKey = commonKey
        f.identifier = .make(keySpace: keySpace, key: key)
        f.extendedLanguageTag = language
        if keySpace == .iTunes, Self.integerAtoms.contains(key),
            let n = Int64(value.trimmingCharacters(in: .whitespaces))
        {
            f.value = NSNumber(value: n)
            f.dataType = kCMMetadataBaseDataType_SInt64
        } else {
            f.value = NSString(string: value)
            f.dataType = kCMMetadataBaseDataType_UTF8
        }
        self.fields = f
        super.init()
    }

    /// iTunes atoms whose value is an integer on Apple's systems (tempo, compilation, rating, gapless, HD, media
    /// kind, episode and season numbers).
    static let integerAtoms: Set<String> = ["tmpo", "cpil", "rtng", "pgap", "hdvd", "stik", "tves", "tvsn"]

    func read<T>(_ body: (Fields) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(fields)
    }

    /// An immutable copy of the item.
    public func copy(with zone: NSZone? = nil) -> Any { AVMetadataItem(fields: read { $0 }) }

    /// A mutable copy of the item (an ``AVMutableMetadataItem``).
    public func mutableCopy(with zone: NSZone? = nil) -> Any { AVMutableMetadataItem(fields: read { $0 }) }

    /// "key space/key".
    open var identifier: AVMetadataIdentifier? { read { $0.identifier } }
    /// The key space of the item's key.
    open var keySpace: AVMetadataKeySpace? { read { $0.keySpace } }
    /// The key as the key space defines it (a string here).
    open var key: (any NSCopying & NSObjectProtocol)? { read { $0.key } }
    /// The common key the item's key maps to, if any.
    open var commonKey: AVMetadataKey? { read { $0.commonKey } }
    /// The item's language (BCP 47), if any.
    open var extendedLanguageTag: String? { read { $0.extendedLanguageTag } }
    /// The locale of the item's language, if any.
    open var locale: Locale? { extendedLanguageTag.map { Locale(identifier: $0) } }
    /// The item's time in a timed-metadata track (`.invalid` for an asset's items).
    open var time: CMTime { read { $0.time } }
    /// How long a timed item applies (`.invalid` for an asset's items).
    open var duration: CMTime { read { $0.duration } }
    /// The date a timed item starts at (date-mapped media); nil otherwise.
    open var startDate: Date? { read { $0.startDate } }
    /// The value: `NSString`, `NSNumber`, `NSDate` or `NSData`.
    open var value: (any NSCopying & NSObjectProtocol)? { read { $0.value } }
    /// The value's type (Apple's `kCMMetadataBaseDataType_*` strings).
    open var dataType: String? { read { $0.dataType } }
    /// Further attributes of the value (Apple's `AVMetadataExtraAttributeKey`s), if any.
    open var extraAttributes: [AVMetadataExtraAttributeKey: Any]? { read { $0.extraAttributes } }

    /// The value as text: a string, or a number's decimal form.
    open var stringValue: String? {
        switch value {
        case let s as NSString: return String(s)
        case let n as NSNumber: return n.stringValue
        case let d as NSDate: return ISO8601DateFormatter().string(from: d as Date)
        default: return nil
        }
    }

    /// The value as a number: a number, or numeric text.
    open var numberValue: NSNumber? {
        switch value {
        case let n as NSNumber: return n
        case let s as NSString:
            let text = String(s).trimmingCharacters(in: .whitespaces)
            if let i = Int64(text) { return NSNumber(value: i) }
            if let d = Double(text) { return NSNumber(value: d) }
            return nil
        default: return nil
        }
    }

    /// The value as a date: a date, or ISO 8601 text (a date, date and time, or a year).
    open var dateValue: Date? {
        switch value {
        case let d as NSDate: return d as Date
        case let s as NSString: return Self.parseDate(String(s))
        default: return nil
        }
    }

    /// The value as bytes: data as it is, text as UTF-8.
    open var dataValue: Data? {
        switch value {
        case let d as NSData: return d as Data
        case let s as NSString: return Data(String(s).utf8)
        default: return nil
        }
    }

    /// Items with the given key and key space (nil matches any), as Apple's class method.
    open class func metadataItems(
        from metadataItems: [AVMetadataItem], withKey key: Any?, keySpace: AVMetadataKeySpace?
    ) -> [AVMetadataItem] {
        metadataItems.filter { item in
            if let keySpace, item.keySpace != keySpace { return false }
            let rawKey = (item.key as? NSString).map { String($0) }
            if let key {
                let wanted =
                    (key as? String) ?? (key as? NSString).map { String($0) } ?? (key as? AVMetadataKey)?.rawValue
                guard let wanted else { return false }
                // A common-key-space query matches items by their common key.
                let matches = rawKey == wanted || (keySpace == .common && item.commonKey?.rawValue == wanted)
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
        "<AVMetadataItem identifier=\(identifier?.rawValue ?? "nil") value=\(value.map { "\($0)" } ?? "nil")>"
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

    /// A cover-art item: the image bytes as `NSData` (`dataValue`), typed JPEG or PNG, under the key of the asset's
    /// format (iTunes `covr`, ID3 `APIC`, else `artwork`), with the common key `artwork`.
    static func artwork(_ data: Data, codecName: String, format: AVMetadataFormat) -> AVMetadataItem {
        var f = Fields()
        let (space, key): (AVMetadataKeySpace, String) =
            format == .iTunesMetadata
            ? (.iTunes, "covr") : format == .id3Metadata ? (.id3, "APIC") : (.ffmpeg, "artwork")
        f.keySpace = space
        f.key = NSString(string: key)
        f.identifier = .make(keySpace: space, key: key)
        f.commonKey = .commonKeyArtwork
        f.value = NSData(data: data)
        f.dataType = codecName == "png" ? kCMMetadataBaseDataType_PNG : kCMMetadataBaseDataType_JPEG
        return AVMetadataItem(fields: f)
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
                    fields: {
                        var f = item.read { $0 }
                        f.keySpace = .common
                        f.key = NSString(string: key.rawValue)
                        f.identifier = AVMetadataIdentifier(rawValue: "common/\(key.rawValue)")
                        return f
                    }()))
        }
        return result
    }
}

/// A metadata item of one's own (Apple's `AVMutableMetadataItem`): every field settable. Setting ``identifier`` sets
/// the key space and key it names; setting the key space or key sets the identifier.
open class AVMutableMetadataItem: AVMetadataItem, @unchecked Sendable {
    /// An empty item.
    public init() {
        super.init(fields: Fields())
    }

    override init(fields: Fields) {
        super.init(fields: fields)
    }

    /// Apple's factory spelling.
    open class func metadataItem() -> AVMutableMetadataItem { AVMutableMetadataItem() }

    private func change(_ body: (inout Fields) -> Void) {
        lock.lock()
        body(&fields)
        lock.unlock()
    }

    open override var identifier: AVMetadataIdentifier? {
        get { super.identifier }
        set {
            change { f in
                f.identifier = newValue
                guard let raw = newValue?.rawValue, let slash = raw.firstIndex(of: "/") else { return }
                let space = String(raw[..<slash])
                f.keySpace = space == "common" ? .common : AVMetadataKeySpace(rawValue: space)
                let key = String(raw[raw.index(after: slash)...]).removingPercentEncoding ?? ""
                f.key = NSString(string: key)
                if f.keySpace == .common { f.commonKey = AVMetadataKey(rawValue: key) }
            }
        }
    }

    /// The key space of the item's key; setting it re-forms the identifier.
    open override var keySpace: AVMetadataKeySpace? {
        get { super.keySpace }
        set {
            change { f in
                f.keySpace = newValue
                if let space = newValue, let key = (f.key as? NSString).map({ String($0) }) {
                    f.identifier = .make(keySpace: space, key: key)
                }
            }
        }
    }

    open override var key: (any NSCopying & NSObjectProtocol)? {
        get { super.key }
        set {
            change { f in
                f.key = newValue
                if let space = f.keySpace, let key = (newValue as? NSString).map({ String($0) }) {
                    f.identifier = .make(keySpace: space, key: key)
                }
            }
        }
    }

    /// The item's language (BCP 47), settable.
    open override var extendedLanguageTag: String? {
        get { super.extendedLanguageTag }
        set { change { $0.extendedLanguageTag = newValue } }
    }

    /// The locale of the item's language; setting it sets the language tag.
    open override var locale: Locale? {
        get { super.locale }
        set { change { $0.extendedLanguageTag = newValue?.identifier.replacingOccurrences(of: "_", with: "-") } }
    }

    open override var time: CMTime {
        get { super.time }
        set { change { $0.time = newValue } }
    }

    open override var duration: CMTime {
        get { super.duration }
        set { change { $0.duration = newValue } }
    }

    open override var startDate: Date? {
        get { super.startDate }
        set { change { $0.startDate = newValue } }
    }

    /// Sets the value; ``dataType`` follows it unless set explicitly afterwards (text UTF-8, integers SInt64,
    /// other numbers Float64, data raw data).
    open override var value: (any NSCopying & NSObjectProtocol)? {
        get { super.value }
        set {
            change { f in
                f.value = newValue
                switch newValue {
                case is NSString: f.dataType = kCMMetadataBaseDataType_UTF8
                case let n as NSNumber:
                    let isFloat = ["f", "d"].contains(String(cString: n.objCType))
                    f.dataType = isFloat ? kCMMetadataBaseDataType_Float64 : kCMMetadataBaseDataType_SInt64
                case is NSData: f.dataType = kCMMetadataBaseDataType_RawData
                default: f.dataType = nil
                }
            }
        }
    }

    open override var dataType: String? {
        get { super.dataType }
        set { change { $0.dataType = newValue } }
    }

    /// Further attributes of the value, settable.
    open override var extraAttributes: [AVMetadataExtraAttributeKey: Any]? {
        get { super.extraAttributes }
        set { change { $0.extraAttributes = newValue } }
    }
}

/// Text in UTF-8 (Apple's `kCMMetadataBaseDataType_UTF8`).
public let kCMMetadataBaseDataType_UTF8 = "com.apple.metadata.datatype.UTF-8"
/// A signed 64-bit integer.
public let kCMMetadataBaseDataType_SInt64 = "com.apple.metadata.datatype.int64"
/// A 64-bit float.
public let kCMMetadataBaseDataType_Float64 = "com.apple.metadata.datatype.float64"
/// Bytes without a type.
public let kCMMetadataBaseDataType_RawData = "com.apple.metadata.datatype.raw-data"
/// A JPEG image.
public let kCMMetadataBaseDataType_JPEG = "public.jpeg"
/// A PNG image.
public let kCMMetadataBaseDataType_PNG = "public.png"
