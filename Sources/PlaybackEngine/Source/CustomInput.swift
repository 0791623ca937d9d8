import FFmpegBridge
import Foundation
import OAVFLocking

/// Supplies the bytes of inputs that no libavformat protocol reads: the public layer's resource loader (an app's
/// `AVAssetResourceLoaderDelegate` answering loading requests for a URL with a custom scheme). An ``FFmpegSource``
/// whose ``SourceOptions/customInput`` reads its location demuxes the bytes of a reader made here through a seekable
/// custom I/O context instead of opening the location (as libavformat's own protocols would be asked).
///
/// Any thread.
package protocol CustomInputProvider: AnyObject, Sendable {
    /// Whether this provider supplies `location`'s bytes (else libavformat opens it). Decided when a source is made.
    func reads(_ location: String) -> Bool

    /// A new reader of `location`'s bytes, from its start. Its reads may wait for the bytes to arrive; they return
    /// soon after `cancellation` is cancelled (throwing `FFmpegError.exit`), and do not make any request after that.
    /// The reader registers with `wake` what makes a read waiting now throw `FFmpegError.tryAgain` (a seek is
    /// waiting; see ``MediaSource/wakeBlockedRead()``).
    func makeReader(location: String, cancellation: Cancellation, wake: CustomInputWake) -> any CustomInputReader
}

/// What asks a custom input's blocked read to give its thread back, within a packet (``FFmpegSource`` gets the
/// request, ``MediaSource/wakeBlockedRead()``; the reader registers the action). A read not waiting is not disturbed.
///
/// Thread-safe.
package final class CustomInputWake: Sendable {
    /// The reader's action; set once, on the reading thread, while the engine thread may already ask.
    private let action = Locked<(@Sendable () -> Void)?>(nil)

    package init() {}

    /// Registers what wakes the reader (the last set wins).
    package func set(_ wake: @escaping @Sendable () -> Void) {
        action.withLock { $0 = wake }
    }

    /// Wakes the reader's wait in progress, if any. Any thread.
    package func wake() {
        action.withLock { $0 }?()
    }
}

/// A reader of a custom input (see ``CustomInputProvider``): a seekable byte stream that can tell why it failed.
///
/// Used by the one thread that reads its source (see ``MediaSource``).
package protocol CustomInputReader: SeekableByteStreamReader {
    /// Why reading failed, in words (the `function` says what, for messages), once a read or seek failed for a
    /// reason of the input's own (not an interruption): the bare code libavformat passes on loses the words.
    var failure: FFmpegError? { get }
}

/// A ``CustomInputProvider`` in ``SourceOptions``: options with the same provider object are equal.
package struct CustomInputReference: Sendable, Hashable {
    package let provider: any CustomInputProvider

    package init(_ provider: any CustomInputProvider) {
        self.provider = provider
    }

    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.provider === rhs.provider }

    package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(provider)) }
}
