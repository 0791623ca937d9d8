import Foundation

/// Preferences for automatic media selection.
open class AVPlayerMediaSelectionCriteria: NSObject, @unchecked Sendable {
    /// The preferred languages (BCP 47), most preferred first.
    public let preferredLanguages: [String]?
    /// The preferred media characteristics, most preferred first.
    public let preferredMediaCharacteristics: [AVMediaCharacteristic]?
    /// The principal media characteristics: stored (not applied here).
    public let principalMediaCharacteristics: [AVMediaCharacteristic]?

    /// Criteria from preferred languages and media characteristics.
    public init(preferredLanguages: [String]?, preferredMediaCharacteristics: [AVMediaCharacteristic]?) {
        self.preferredLanguages = preferredLanguages
        self.preferredMediaCharacteristics = preferredMediaCharacteristics
        self.principalMediaCharacteristics = nil
        super.init()
    }

    /// Criteria from principal characteristics, preferred languages and media characteristics.
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
