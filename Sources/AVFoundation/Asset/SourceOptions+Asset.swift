import Foundation
import PlaybackEngine

extension SourceOptions {
    /// The engine's network options for an asset's options dictionary: `AVURLAssetHTTPUserAgentKey` (a `String`),
    /// `"AVURLAssetHTTPHeaderFieldsKey"` (`[String: String]`), `AVURLAssetHTTPCookiesKey` and (tests)
    /// `AVURLAsset.oavfNetworkTransportKey`, and the asset's resource loader; other keys are not the engine's business.
    /// Any thread.
    init(assetOptions options: [String: Any]) {
        self.init(
            userAgent: options[AVURLAssetHTTPUserAgentKey] as? String,
            headers: options["AVURLAssetHTTPHeaderFieldsKey"] as? [String: String] ?? [:])
        // (`AVURLAsset` keeps the `[HTTPCookie]` an app passes as values any thread can hold.)
        cookies = options[AVURLAssetHTTPCookiesKey] as? [SourceCookie] ?? []
        prefersPreciseDuration = options[AVURLAssetPreferPreciseDurationAndTimingKey] as? Bool ?? false
        transport = options[AVURLAsset.oavfNetworkTransportKey] as? NetworkTransportReference
        customInput = options[AVURLAsset.resourceLoaderOptionKey] as? CustomInputReference
    }
}
