import Foundation
import PlaybackEngine

extension SourceOptions {
    /// The engine's network options for an asset's options dictionary: `AVURLAssetHTTPUserAgentKey` (a `String`)
    /// and `"AVURLAssetHTTPHeaderFieldsKey"` (`[String: String]`); other keys are not the engine's business.
    /// Any thread.
    init(assetOptions options: [String: Any]) {
        self.init(
            userAgent: options[AVURLAssetHTTPUserAgentKey] as? String,
            headers: options["AVURLAssetHTTPHeaderFieldsKey"] as? [String: String] ?? [:])
    }
}
