import CoreMedia
import Foundation
import PlaybackEngine

// Timed metadata (ID3 tags of a `timed_id3` stream, ICY titles) as Apple's metadata items.
extension AVMetadataItem {
    /// The items of one timed-metadata sample, each at the sample's time with an indefinite duration (the sample
    /// holds until the next).
    ///
    /// ID3 frames: key space ``AVMetadataKeySpace/id3``, the frame ID as key, identifier `id3/<frame ID>` (Apple's
    /// `id3Metadata…` identifiers). Text frames (`T…`, `W…`, `COMM`) have their text as value (`NSString`); `TXXX`,
    /// `WXXX`, `COMM` their description, and `PRIV` its owner identifier, under the extra attribute
    /// ``AVMetadataExtraAttributeKey/info`` (as Apple's); `PRIV` and other binary frames have their bytes as
    /// `NSData`. `TIT2` has the common key `title`.
    ///
    /// ICY fields: key space ``AVMetadataKeySpace/icy``, identifier `icy/StreamTitle` etc., the text as value;
    /// `StreamTitle` has the common key `title`.
    static func items(for sample: TimedMetadataSample) -> [AVMetadataItem] {
        switch sample.payload {
        case .id3(let frames):
            return frames.map { frame in
                var f = Fields()
                f.keySpace = .id3
                f.key = NSString(string: frame.id)
                f.identifier = .make(keySpace: .id3, key: frame.id)
                f.commonKey = frame.id == "TIT2" ? .commonKeyTitle : nil
                f.time = sample.time
                f.duration = .indefinite
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
                var f = Fields()
                f.keySpace = .icy
                f.key = NSString(string: field.key)
                f.identifier = .make(keySpace: .icy, key: field.key)
                f.commonKey = field.key == "StreamTitle" ? .commonKeyTitle : nil
                f.time = sample.time
                f.duration = .indefinite
                f.value = NSString(string: field.value)
                f.dataType = kCMMetadataBaseDataType_UTF8
                return AVMetadataItem(fields: f)
            }
        }
    }
}
