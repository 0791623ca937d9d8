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

    /// The ID3 title frame (`TIT2`).
    public static let id3MetadataKeyTitleDescription = AVMetadataKey(rawValue: "TIT2")
    /// The ID3 user-defined text frame (`TXXX`).
    public static let id3MetadataKeyUserText = AVMetadataKey(rawValue: "TXXX")
    /// The ID3 private frame (`PRIV`).
    public static let id3MetadataKeyPrivate = AVMetadataKey(rawValue: "PRIV")
    /// The ID3 comments frame (`COMM`).
    public static let id3MetadataKeyComments = AVMetadataKey(rawValue: "COMM")
    /// The ID3 lead performer frame (`TPE1`).
    public static let id3MetadataKeyLeadPerformer = AVMetadataKey(rawValue: "TPE1")
    /// The ID3 album title frame (`TALB`).
    public static let id3MetadataKeyAlbumTitle = AVMetadataKey(rawValue: "TALB")
    /// The ID3 band / album artist frame (`TPE2`).
    public static let id3MetadataKeyBand = AVMetadataKey(rawValue: "TPE2")
    /// The ID3 composer frame (`TCOM`).
    public static let id3MetadataKeyComposer = AVMetadataKey(rawValue: "TCOM")
    /// The ID3 recording time frame (`TDRC`).
    public static let id3MetadataKeyRecordingTime = AVMetadataKey(rawValue: "TDRC")
    /// The ID3 content type (genre) frame (`TCON`).
    public static let id3MetadataKeyContentType = AVMetadataKey(rawValue: "TCON")
    /// The ID3 copyright frame (`TCOP`).
    public static let id3MetadataKeyCopyright = AVMetadataKey(rawValue: "TCOP")
    /// The ID3 encoding software frame (`TSSE`).
    public static let id3MetadataKeyEncodedWith = AVMetadataKey(rawValue: "TSSE")
    /// The ID3 track number frame (`TRCK`), "n" or "n/total".
    public static let id3MetadataKeyTrackNumber = AVMetadataKey(rawValue: "TRCK")
    /// The ID3 part-of-a-set (disc) frame (`TPOS`).
    public static let id3MetadataKeyPartOfASet = AVMetadataKey(rawValue: "TPOS")
    /// The ID3 publisher frame (`TPUB`).
    public static let id3MetadataKeyPublisher = AVMetadataKey(rawValue: "TPUB")
    /// The ID3 language frame (`TLAN`).
    public static let id3MetadataKeyLanguage = AVMetadataKey(rawValue: "TLAN")
    /// The ICY stream title (`StreamTitle`).
    public static let icyMetadataKeyStreamTitle = AVMetadataKey(rawValue: "StreamTitle")
    /// The ICY stream URL (`StreamUrl`).
    public static let icyMetadataKeyStreamURL = AVMetadataKey(rawValue: "StreamUrl")
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

    /// The ID3 title frame (`id3/TIT2`).
    public static let id3MetadataTitleDescription = AVMetadataIdentifier(rawValue: "id3/TIT2")
    /// The ID3 user-defined text frame (`id3/TXXX`).
    public static let id3MetadataUserText = AVMetadataIdentifier(rawValue: "id3/TXXX")
    /// The ID3 private frame (`id3/PRIV`).
    public static let id3MetadataPrivate = AVMetadataIdentifier(rawValue: "id3/PRIV")
    /// The ID3 comments frame (`id3/COMM`).
    public static let id3MetadataComments = AVMetadataIdentifier(rawValue: "id3/COMM")
    /// The ID3 lead performer frame (`id3/TPE1`).
    public static let id3MetadataLeadPerformer = AVMetadataIdentifier(rawValue: "id3/TPE1")
    /// The ICY stream title (`icy/StreamTitle`).
    public static let icyMetadataStreamTitle = AVMetadataIdentifier(rawValue: "icy/StreamTitle")
    /// The ICY stream URL (`icy/StreamUrl`).
    public static let icyMetadataStreamURL = AVMetadataIdentifier(rawValue: "icy/StreamUrl")

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
        // Key spaces whose identifiers Apple spells differently: the common key space ("comn") is "common"
        // (`commonIdentifierTitle` = "common/title"), ID3 ("org.id3") is "id3" (`id3MetadataTitleDescription` =
        // "id3/TIT2").
        let space =
            switch keySpace {
            case .common: "common"
            case .id3: "id3"
            default: keySpace.rawValue
            }
        return AVMetadataIdentifier(rawValue: "\(space)/\(escaped)")
    }
}
