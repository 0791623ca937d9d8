import Foundation

/// Preferences for automatic media selection.
open class AVPlayerMediaSelectionCriteria: NSObject, @unchecked Sendable {
    public let preferredLanguages: [String]?
    public let preferredMediaCharacteristics: [AVMediaCharacteristic]?
    public let principalMediaCharacteristics: [AVMediaCharacteristic]?

    public init(preferredLanguages: [String]?, preferredMediaCharacteristics: [AVMediaCharacteristic]?) {
        self.preferredLanguages = preferredLanguages
        self.preferredMediaCharacteristics = preferredMediaCharacteristics
        self.principalMediaCharacteristics = nil
        super.init()
    }

    public init(
        principalMediaCharacteristics: [AVMediaCharacteristic]?, preferredLanguages: [String]?,
        preferredMediaCharacteristics: [AVMediaCharacteristic]?
    ) {
        self.preferredLanguages = preferredLanguages
        self.preferredMediaCharacteristics = preferredMediaCharacteristics
        self.principalMediaCharacteristics = principalMediaCharacteristics
        super.init()
    }
}
