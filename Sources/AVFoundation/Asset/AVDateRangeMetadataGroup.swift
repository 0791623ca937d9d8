import Foundation
import PlaybackEngine

/// Metadata items that apply over a range of dates (Apple's `AVDateRangeMetadataGroup`): an HTTP Live Streaming
/// `EXT-X-DATERANGE`, as an ``AVPlayerItemMetadataCollector`` delivers it.
///
/// From a date range: ``startDate`` is its `START-DATE`; ``endDate`` its `END-DATE`, else `START-DATE` +
/// `DURATION` (nil while neither is known); ``classifyingLabel`` its `CLASS`; ``uniqueID`` its `ID`;
/// ``AVMetadataGroup/items`` one per other attribute (`DURATION`, `PLANNED-DURATION`, `SCTE35-CMD`/`-OUT`/`-IN`,
/// every `X-…`), in the key space ``AVMetadataKeySpace/hlsDateRange`` (identifier `lsdr/<name>`) with the
/// attribute's name as key, a quoted string
/// as `NSString`, a number as `NSNumber` and a hexadecimal sequence as `NSData`; each item's `startDate` is the
/// range's.
///
/// Differs from Apple: no `NSMutableCopying` (`AVMutableDateRangeMetadataGroup` is not provided).
open class AVDateRangeMetadataGroup: AVMetadataGroup, NSCopying, @unchecked Sendable {
    private let start: Date
    private let end: Date?
    private let label: String?
    private let identifier: String?

    /// A group of `items` over `startDate` … `endDate`, as Apple's `init(items:start:end:)`.
    public convenience init(items: [AVMetadataItem], start startDate: Date, end endDate: Date?) {
        self.init(items: items, start: startDate, end: endDate, classifyingLabel: nil, uniqueID: nil)
    }

    init(items: [AVMetadataItem], start: Date, end: Date?, classifyingLabel: String?, uniqueID: String?) {
        self.start = start
        self.end = end
        self.label = classifyingLabel
        self.identifier = uniqueID
        super.init(items: items)
    }

    /// The date the range starts.
    open var startDate: Date { start }
    /// The date the range ends (nil: not known yet).
    open var endDate: Date? { end }
    /// The range's `CLASS`.
    open override var classifyingLabel: String? { label }
    /// The range's `ID`.
    open override var uniqueID: String? { identifier }

    /// The group itself (it is immutable).
    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// The group for a date range the engine reports.
    convenience init(_ range: DateRangeDescription) {
        let items = range.attributes.map { attribute -> AVMetadataItem in
            var f = AVMetadataItem.Fields()
            f.keySpace = .hlsDateRange
            f.key = NSString(string: attribute.name)
            f.identifier = .make(keySpace: .hlsDateRange, key: attribute.name)
            f.startDate = range.startDate
            switch attribute.value {
            case .string(let s):
                f.value = NSString(string: s)
                f.dataType = kCMMetadataBaseDataType_UTF8
            case .number(let n):
                f.value = NSNumber(value: n)
                f.dataType = kCMMetadataBaseDataType_Float64
            case .data(let d):
                f.value = NSData(data: d)
                f.dataType = kCMMetadataBaseDataType_RawData
            }
            return AVMetadataItem(fields: f)
        }
        self.init(
            items: items, start: range.startDate, end: range.endDate, classifyingLabel: range.classAttribute,
            uniqueID: range.id)
    }
}
