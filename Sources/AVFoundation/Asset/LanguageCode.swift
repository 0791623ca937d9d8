import Foundation

/// Language-code conversions between what containers store (ISO 639-2, either the /B or /T form,
/// or sometimes ISO 639-1) and what Apple hands out (`languageCode`: ISO 639-2/T;
/// `extendedLanguageTag`: BCP 47).
enum LanguageCode {
    /// ISO 639-2/B codes that differ from their /T form.
    private static let bibliographicToTerminologic: [String: String] = [
        "alb": "sqi", "arm": "hye", "baq": "eus", "bur": "mya", "chi": "zho", "cze": "ces", "dut": "nld",
        "fre": "fra", "geo": "kat", "ger": "deu", "gre": "ell", "ice": "isl", "mac": "mkd", "mao": "mri",
        "may": "msa", "per": "fas", "rum": "ron", "slo": "slk", "tib": "bod", "wel": "cym",
    ]

    /// ISO 639-2/T → ISO 639-1 for languages that have a two-letter code (BCP 47 prefers it).
    private static let twoLetter: [String: String] = [
        "afr": "af", "amh": "am", "ara": "ar", "aze": "az", "bel": "be", "ben": "bn", "bod": "bo", "bos": "bs",
        "bre": "br", "bul": "bg", "cat": "ca", "ces": "cs", "cym": "cy", "dan": "da", "deu": "de", "ell": "el",
        "eng": "en", "epo": "eo", "est": "et", "eus": "eu", "fas": "fa", "fin": "fi", "fra": "fr", "gle": "ga",
        "glg": "gl", "guj": "gu", "heb": "he", "hin": "hi", "hrv": "hr", "hun": "hu", "hye": "hy", "ind": "id",
        "isl": "is", "ita": "it", "jpn": "ja", "kat": "ka", "kaz": "kk", "khm": "km", "kan": "kn", "kor": "ko",
        "lao": "lo", "lat": "la", "lav": "lv", "lit": "lt", "mal": "ml", "mar": "mr", "mkd": "mk", "mon": "mn",
        "mri": "mi", "msa": "ms", "mya": "my", "nep": "ne", "nld": "nl", "nob": "nb", "nno": "nn", "nor": "no",
        "pan": "pa", "pol": "pl", "por": "pt", "pus": "ps", "ron": "ro", "rus": "ru", "sin": "si", "slk": "sk",
        "slv": "sl", "som": "so", "spa": "es", "sqi": "sq", "srp": "sr", "swa": "sw", "swe": "sv", "tam": "ta",
        "tel": "te", "tha": "th", "tur": "tr", "ukr": "uk", "urd": "ur", "uzb": "uz", "vie": "vi", "yid": "yi",
        "zho": "zh", "zul": "zu",
    ]

    /// The ISO 639-2/T form of a container's language tag; nil for missing or undetermined ("und").
    static func iso639_2T(_ tag: String?) -> String? {
        guard var code = tag?.trimmingCharacters(in: .whitespaces).lowercased(), !code.isEmpty else { return nil }
        if let dash = code.firstIndex(where: { $0 == "-" || $0 == "_" }) { code = String(code[..<dash]) }
        if code == "und" || code == "mis" || code == "zxx" || code == "mul" { return nil }
        if code.count == 2, let three = twoLetter.first(where: { $0.value == code })?.key { return three }
        return bibliographicToTerminologic[code] ?? code
    }

    /// A BCP 47 tag for an ISO 639-2/T code (two-letter where one exists).
    static func bcp47(fromISO639 code: String?) -> String? {
        guard let code else { return nil }
        return twoLetter[code] ?? code
    }

    /// The language's name in English ("French"), for display names.
    static func displayName(bcp47 tag: String?) -> String? {
        guard let tag else { return nil }
        return Locale(identifier: "en").localizedString(forLanguageCode: tag)
    }
}

/// Four-character codes ("avc1") ⇄ their 32-bit big-endian values.
enum FourCC {
    static func value(_ s: String) -> UInt32 {
        var v: UInt32 = 0
        for byte in s.utf8.prefix(4) { v = v << 8 | UInt32(byte) }
        return v
    }

    static func string(_ v: UInt32) -> String {
        let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> UInt32($0)) }
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7f }) { return String(decoding: bytes, as: UTF8.self) }
        return String(format: "0x%08x", v)
    }
}
