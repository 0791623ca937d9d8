import CoreMedia
import Foundation

/// A metadata item of one's own (Apple's `AVMutableMetadataItem`): every field settable. Setting ``identifier`` sets
/// the key space and key it names; setting the key space or key sets the identifier.
open class AVMutableMetadataItem: AVMetadataItem, @unchecked Sendable {
    /// An empty item.
    public override init() {
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
                Self.deriveCommonKey(&f)
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
                Self.deriveCommonKey(&f)
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
                Self.deriveCommonKey(&f)
            }
        }
    }

    /// An item whose key is in the common key space has that key as its `commonKey` (as Apple's does, whether the
    /// key space and key or the identifier were set); any other item has none.
    private static func deriveCommonKey(_ f: inout Fields) {
        guard f.keySpace == .common, let key = (f.key as? NSString).map({ String($0) }) else {
            f.commonKey = nil
            return
        }
        f.commonKey = AVMetadataKey(rawValue: key)
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
/// Text in big-endian UTF-16.
public let kCMMetadataBaseDataType_UTF16 = "com.apple.metadata.datatype.UTF-16"
/// A signed 8-bit integer.
public let kCMMetadataBaseDataType_SInt8 = "com.apple.metadata.datatype.int8"
/// A signed 16-bit integer.
public let kCMMetadataBaseDataType_SInt16 = "com.apple.metadata.datatype.int16"
/// A signed 32-bit integer.
public let kCMMetadataBaseDataType_SInt32 = "com.apple.metadata.datatype.int32"
/// A signed 64-bit integer.
public let kCMMetadataBaseDataType_SInt64 = "com.apple.metadata.datatype.int64"
/// An unsigned 8-bit integer.
public let kCMMetadataBaseDataType_UInt8 = "com.apple.metadata.datatype.uint8"
/// An unsigned 16-bit integer.
public let kCMMetadataBaseDataType_UInt16 = "com.apple.metadata.datatype.uint16"
/// An unsigned 32-bit integer.
public let kCMMetadataBaseDataType_UInt32 = "com.apple.metadata.datatype.uint32"
/// An unsigned 64-bit integer.
public let kCMMetadataBaseDataType_UInt64 = "com.apple.metadata.datatype.uint64"
/// A 32-bit float.
public let kCMMetadataBaseDataType_Float32 = "com.apple.metadata.datatype.float32"
/// A 64-bit float.
public let kCMMetadataBaseDataType_Float64 = "com.apple.metadata.datatype.float64"
/// Bytes without a type.
public let kCMMetadataBaseDataType_RawData = "com.apple.metadata.datatype.raw-data"
/// A JPEG image.
public let kCMMetadataBaseDataType_JPEG = "public.jpeg"
/// A PNG image.
public let kCMMetadataBaseDataType_PNG = "public.png"
