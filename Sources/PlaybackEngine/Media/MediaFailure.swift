/// A failure of the media layer (opening, probing, demuxing, decoding, converting, encoding), as the public layer
/// sees it: errors that come out of the engine as `any Error` are matched with `error as? any MediaFailure` and
/// turned into `AVError`s without knowing FFmpeg.
///
/// The engine's failures are FFmpeg's errors underneath (``code`` is the `AVERROR` value). Values: any thread.
package protocol MediaFailure: Error {
    /// The underlying library's error code (an `AVERROR`, negative).
    var code: Int32 { get }
    /// The library function that failed, for messages (may be empty).
    var function: String { get }
    /// The library's own text for ``code``.
    var message: String { get }
    /// The `errno` value when the failure is an operating-system error, else nil.
    var posixErrno: Int32? { get }
    /// What kind of failure it is.
    var kind: MediaFailureKind { get }
}
