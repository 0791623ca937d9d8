import Foundation

/// `#EXT-X-KEY` or `#EXT-X-SESSION-KEY`: how the segments that follow are encrypted (RFC 8216 section 4.3.2.4).
///
/// The parser records every method; deciding which it can decrypt is the source's business (only `.aes128` with the
/// `identity` key format is whole-segment AES that needs no DRM system).
package struct HLSKey: Sendable, Equatable {
    package enum Method: Sendable, Equatable, Hashable {
        /// `NONE`: the segments are not encrypted.
        case none
        /// `AES-128`: whole segments in AES-128-CBC with PKCS7 padding.
        case aes128
        /// `SAMPLE-AES`: samples encrypted inside the container (usually with a DRM system).
        case sampleAES
        /// `SAMPLE-AES-CTR` (8216bis): common encryption `cenc`.
        case sampleAESCTR
        /// A method the RFC does not define, as written.
        case other(String)

        init(_ text: String) {
            switch text {
            case "NONE": self = .none
            case "AES-128": self = .aes128
            case "SAMPLE-AES": self = .sampleAES
            case "SAMPLE-AES-CTR": self = .sampleAESCTR
            default: self = .other(text)
            }
        }
    }

    package var method: Method
    /// Where the key is; `nil` only for `.none`.
    package var uri: URL?
    /// The 16-byte initialization vector of `IV` (a shorter hexadecimal value is the same 128-bit number, zero
    /// padded on the left); `nil` when absent, and then each segment's IV is its media sequence number (see
    /// `initializationVector(forSequenceNumber:)`).
    package var iv: [UInt8]?
    /// `KEYFORMAT`; `nil` means `identity`.
    package var keyFormat: String?
    package var keyFormatVersions: String?

    package init(
        method: Method, uri: URL? = nil, iv: [UInt8]? = nil, keyFormat: String? = nil, keyFormatVersions: String? = nil
    ) {
        self.method = method
        self.uri = uri
        self.iv = iv
        self.keyFormat = keyFormat
        self.keyFormatVersions = keyFormatVersions
    }

    /// Whether the key is the key itself (`KEYFORMAT` absent or `identity`) rather than a DRM system's data.
    package var isIdentityFormat: Bool { keyFormat == nil || keyFormat == "identity" }

    /// The IV for the segment with media sequence number `sequenceNumber`: `iv` when given, else the sequence number
    /// as a 16-byte big-endian integer (RFC 8216 section 5.2).
    package func initializationVector(forSequenceNumber sequenceNumber: Int) -> [UInt8] {
        if let iv { return iv }
        let number = UInt64(truncatingIfNeeded: sequenceNumber)
        return [UInt8](repeating: 0, count: 8) + (0..<8).map { UInt8(truncatingIfNeeded: number >> (56 - 8 * $0)) }
    }
}
