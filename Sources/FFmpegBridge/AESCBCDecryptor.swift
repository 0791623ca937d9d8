import CFFmpeg

/// AES-128 in CBC mode, decrypting (libavutil's `av_aes`): what HTTP Live Streaming's `METHOD=AES-128` segments
/// need. Keeps the chaining value between calls, so a stream can be decrypted in pieces of whole blocks.
///
/// Not thread-safe: one reader owns it.
public final class AESCBCDecryptor {
    private let context: OpaquePointer
    private var iv: [UInt8]

    /// A decryptor with a 16-byte `key` and a 16-byte initialisation vector.
    public init(key: [UInt8], iv: [UInt8]) throws(FFmpegError) {
        guard key.count == 16, iv.count == 16 else { throw FFmpegError.invalidData }
        guard let context = av_aes_alloc() else { throw FFmpegError.posix(ENOMEM) }
        self.context = context
        self.iv = iv
        _ = av_aes_init(context, key, 128, 1)
    }

    deinit {
        av_free(UnsafeMutableRawPointer(context))
    }

    /// Decrypts `cipher` (a multiple of 16 bytes; a trailing partial block is ignored) and returns the plaintext.
    public func decrypt(_ cipher: [UInt8]) -> [UInt8] {
        let blocks = cipher.count / 16
        guard blocks > 0 else { return [] }
        var plain = [UInt8](repeating: 0, count: blocks * 16)
        plain.withUnsafeMutableBufferPointer { out in
            cipher.withUnsafeBufferPointer { input in
                av_aes_crypt(context, out.baseAddress, input.baseAddress, Int32(blocks), &iv, 1)
            }
        }
        return plain
    }
}
