import CoreMedia

/// What the audio and video decoder threads share: controls and counters kept in their
/// ``DecoderStatus`` (thread-safe), read and set from any thread.
package protocol StreamDecoder: AnyObject {
    /// The packets the decoder reads (its serial scopes drop targets).
    var packets: PacketQueue { get }
    /// Counters and switches shared with the decode thread.
    var status: DecoderStatus { get }
}

extension StreamDecoder {
    /// Packets the codec rejected, failed receives, corrupt or unconvertible output so far.
    package var decodeErrorCount: Int { status.decodeErrorCount }

    /// The serial whose end of stream has been fully decoded, nil while decoding.
    package var finishedSerial: Serial? { status.finishedSerial }

    /// Drop output of `serial` that ends at or before `time` without pushing it (exact seeks); nil
    /// clears. `Demuxer.seek(to:range:accurate:)` achieves the same through the packet queues.
    package func setDropFramesBefore(_ time: CMTime?, serial: Serial) {
        status.setDropFramesBefore(time, scope: .serial(serial))
    }

    /// The exact-seek target for the next seek: set it just before asking the demuxer to seek, and the
    /// decoder drops output ending at or before it in every serial after the packet queue's current
    /// one; nil clears. Reads back the target last set.
    package var dropFramesBefore: CMTime? {
        get { status.dropFramesBefore }
        set { status.setDropFramesBefore(newValue, scope: .after(packets.serial)) }
    }
}
