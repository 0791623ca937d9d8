import CoreMedia
import Foundation
import PlaybackEngine

// Timed metadata (ID3 tags, ICY titles, Matroska chapter tags) as Apple's metadata items.
extension AVMetadataItem {
    /// The items of one timed-metadata sample, each at the sample's time with its duration (a chapter's length), else
    /// an indefinite one (the sample holds until the next).
    ///
    /// ID3 frames: key space ``AVMetadataKeySpace/id3``, the frame ID as key, identifier `id3/<frame ID>` (Apple's
    /// `id3Metadata…` identifiers). Text frames (`T…`, `W…`, `COMM`) have their text as value (`NSString`); `TXXX`,
    /// `WXXX`, `COMM` their description, and `PRIV` its owner identifier, under the extra attribute
    /// ``AVMetadataExtraAttributeKey/info`` (as Apple's); `PRIV` and other binary frames have their bytes as
    /// `NSData`. `TIT2` has the common key `title`.
    ///
    /// ICY fields: key space ``AVMetadataKeySpace/icy``, identifier `icy/StreamTitle` etc., the text as value;
    /// `StreamTitle` has the common key `title`.
    ///
    /// Matroska chapter tags: key space ``AVMetadataKeySpace/ffmpeg`` (as the file's own Matroska tags), the tag name
    /// libavformat gives, lower-cased, as key ("title", "artist", "comment" …), identifier `org.ffmpeg/<key>`, the
    /// text as value, the common key of that tag name where there is one (`title`, `artist`, `description` for
    /// `comment` …).
    static func items(for sample: TimedMetadataSample) -> [AVMetadataItem] {
        let duration = sample.duration ?? .indefinite
        /// An item's fields with what every payload sets alike: its key, key space, identifier, common key and time.
        func common(_ space: AVMetadataKeySpace, _ key: String, common: AVMetadataKey?) -> Fields {
            var f = Fields()
            f.keySpace = space
            f.key = NSString(string: key)
            f.identifier = .make(keySpace: space, key: key)
            f.commonKey = common
            f.time = sample.time
            f.duration = duration
            return f
        }
        switch sample.payload {
        case .id3(let frames):
            return frames.map { frame in
                var f = common(.id3, frame.id, common: frame.id == "TIT2" ? AVMetadataKey.commonKeyTitle : nil)
                if let text = frame.text {
                    f.value = NSString(string: text)
                    f.dataType = kCMMetadataBaseDataType_UTF8
                } else {
                    f.value = NSData(data: Data(frame.data))
                    f.dataType = kCMMetadataBaseDataType_RawData
                }
                if let info = frame.info { f.extraAttributes = [.info: info] }
                return AVMetadataItem(fields: f)
            }
        case .icy(let fields):
            return fields.map { field in
                var f = common(.icy, field.key, common: field.key == "StreamTitle" ? AVMetadataKey.commonKeyTitle : nil)
                f.value = NSString(string: field.value)
                f.dataType = kCMMetadataBaseDataType_UTF8
                return AVMetadataItem(fields: f)
            }
        case .keyedValues(let values):
            return values.map { entry in
                let space = AVMetadataKeySpace(rawValue: entry.key.namespace)
                var f = common(
                    space, entry.key.name,
                    common: space == .quickTimeMetadata ? quickTimeCommonKeys[entry.key.name] : nil)
                (f.value, f.dataType) = Self.keyedValue(entry.value, type: entry.key.dataType)
                return AVMetadataItem(fields: f)
            }
        case .chapterTags(let tags):
            return tags.map { tag in
                var f = common(.ffmpeg, tag.key, common: commonKeys[tag.key])
                f.value = NSString(string: tag.value)
                f.dataType = kCMMetadataBaseDataType_UTF8
                return AVMetadataItem(fields: f)
            }
        }
    }

    /// A QuickTime timed-metadata value as Apple gives it (`NSString`, `NSNumber`, `NSData`) with its data type.
    static func keyedValue(
        _ value: MetadataKeyTable.Value, type: UInt32?
    ) -> (value: (any NSCopying & NSObjectProtocol)?, dataType: String?) {
        switch value {
        case .string(let text):
            return (NSString(string: text), type == 2 ? kCMMetadataBaseDataType_UTF16 : kCMMetadataBaseDataType_UTF8)
        case .integer(let number):
            let types: [UInt32: String] = [
                65: kCMMetadataBaseDataType_SInt8, 66: kCMMetadataBaseDataType_SInt16,
                67: kCMMetadataBaseDataType_SInt32, 75: kCMMetadataBaseDataType_UInt8,
                76: kCMMetadataBaseDataType_UInt16, 77: kCMMetadataBaseDataType_UInt32,
                22: kCMMetadataBaseDataType_UInt64, 78: kCMMetadataBaseDataType_UInt64,
            ]
            return (NSNumber(value: number), type.flatMap { types[$0] } ?? kCMMetadataBaseDataType_SInt64)
        case .float(let number):
            return (
                NSNumber(value: number), type == 23 ? kCMMetadataBaseDataType_Float32 : kCMMetadataBaseDataType_Float64
            )
        case .data(let bytes):
            return (NSData(data: Data(bytes)), kCMMetadataBaseDataType_RawData)
        }
    }

    /// The common keys of Apple's QuickTime metadata keys (`com.apple.quicktime.*`).
    static let quickTimeCommonKeys: [String: AVMetadataKey] = [
        "com.apple.quicktime.title": .commonKeyTitle, "com.apple.quicktime.artist": .commonKeyArtist,
        "com.apple.quicktime.album": .commonKeyAlbumName, "com.apple.quicktime.author": .commonKeyAuthor,
        "com.apple.quicktime.description": .commonKeyDescription,
        "com.apple.quicktime.creationdate": .commonKeyCreationDate,
        "com.apple.quicktime.location.ISO6709": .commonKeyLocation,
        "com.apple.quicktime.copyright": .commonKeyCopyrights, "com.apple.quicktime.publisher": .commonKeyPublisher,
        "com.apple.quicktime.software": .commonKeySoftware, "com.apple.quicktime.make": .commonKeyMake,
        "com.apple.quicktime.model": .commonKeyModel,
    ]
}
