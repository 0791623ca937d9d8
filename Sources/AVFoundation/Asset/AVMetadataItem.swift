import CoreMedia
import Foundation
import OAVFLocking

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

    /// Guards `fields`: the public object's values, which Apple lets any thread read (and a mutable copy's owner set).
    /// Not an engine command: a metadata item is a value the app holds, not playback state.
    let lock = ConditionLock()
    /// Guarded by `lock`.
    var fields: Fields

    init(fields: Fields) {
        self.fields = fields
        super.init()
    }

    /// An item with no key, value or time (`NSObject`'s initializer on Apple's systems): what a subclass that
    /// overrides the accessors starts from.
    public override init() {
        self.fields = Fields()
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

    /// The key space of an identifier, as Apple's `keySpace(forIdentifier:)`: the part before the first "/" ("id3"
    /// is ``AVMetadataKeySpace/id3``, "common" ``AVMetadataKeySpace/common``); nil without one.
    open class func keySpace(forIdentifier identifier: AVMetadataIdentifier) -> AVMetadataKeySpace? {
        guard let slash = identifier.rawValue.firstIndex(of: "/"), slash != identifier.rawValue.startIndex else {
            return nil
        }
        switch identifier.rawValue[..<slash] {
        case "common": return .common
        case "id3": return .id3
        case let space: return AVMetadataKeySpace(rawValue: String(space))
        }
    }

    /// The key of an identifier, as Apple's `key(forIdentifier:)`: the part after the first "/" with its
    /// percent-escapes undone (UTF-8 where the bytes are UTF-8, else one Latin-1 character per byte: "itsk/%A9nam"
    /// is "©nam"), as a `String`; nil without a key space. (A Latin-1 pair that is also valid UTF-8 reads as UTF-8.)
    open class func key(forIdentifier identifier: AVMetadataIdentifier) -> Any? {
        guard keySpace(forIdentifier: identifier) != nil, let slash = identifier.rawValue.firstIndex(of: "/") else {
            return nil
        }
        let escaped = Array(identifier.rawValue[identifier.rawValue.index(after: slash)...].utf8)
        var bytes: [UInt8] = []
        var i = 0
        while i < escaped.count {
            if escaped[i] == UInt8(ascii: "%"), i + 2 < escaped.count,
                let byte = UInt8(String(decoding: escaped[(i + 1)...(i + 2)], as: UTF8.self), radix: 16)
            {
                bytes.append(byte)
                i += 3
            } else {
                bytes.append(escaped[i])
                i += 1
            }
        }
        // As ``AVMetadataIdentifier/make(keySpace:key:)`` escapes: a character is one Latin-1 byte or its UTF-8 bytes.
        var key = ""
        var j = 0
        while j < bytes.count {
            let lead = bytes[j]
            let length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc2 ? 2 : 1
            if length > 1, j + length <= bytes.count,
                let character = String(validating: bytes[j..<j + length], as: UTF8.self)
            {
                key += character
                j += length
            } else {
                key.unicodeScalars.append(Unicode.Scalar(lead))
                j += 1
            }
        }
        return key
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
    /// Creates a value from its raw value (the unlabelled form of ``init(rawValue:)``).
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// More about the item, specific to its key space and key (`info`): the description of an ID3 `TXXX`,
    /// `WXXX`, `COMM` or `APIC` frame, the owner identifier of a `PRIV` frame.
    public static let info = AVMetadataExtraAttributeKey(rawValue: "info")
    /// A resource to use as the item's value (`valueURI`).
    public static let valueURI = AVMetadataExtraAttributeKey(rawValue: "valueURI")
    /// The base URI the item's relative URIs resolve against (`baseURI`).
    public static let baseURI = AVMetadataExtraAttributeKey(rawValue: "baseURI")
}

extension AVMetadataItem {
    /// Container tags (FFmpeg names) → Apple's common keys.
    static let commonKeys: [String: AVMetadataKey] = [
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
