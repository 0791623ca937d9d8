import CoreMedia
import Foundation
import OAVFLocking
import PlaybackEngine

/// Reads an asset's media samples, decoded or as stored, without playing it: add outputs
/// (``AVAssetReaderTrackOutput``, ``AVAssetReaderAudioMixOutput``), call ``startReading()``, then call each output's
/// ``AVAssetReaderOutput/copyNextSampleBuffer()`` until it returns nil, and check ``status``.
///
/// ```swift
/// let reader = try AVAssetReader(asset: asset)
/// let output = AVAssetReaderTrackOutput(
///     track: videoTrack, outputSettings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA])
/// reader.add(output)
/// reader.startReading()
/// while let sample = output.copyNextSampleBuffer() { … }
/// if reader.status == .failed { print(reader.error!) }
/// ```
///
/// Reading is synchronous, on the thread that calls `copyNextSampleBuffer()` (as on Apple's systems): each output
/// demuxes its own track (so outputs can be read in any order, from different threads), decodes it with FFmpeg and
/// converts the result. States: `unknown` → (`startReading()`) `reading` → `completed` once every output has handed
/// out its last sample, `failed` when one cannot go on (``error`` says why), or `cancelled` (``cancelReading()``);
/// the last three are final.
///
/// Differs from Apple: `init(asset:)` waits for the asset to load (it throws the asset's loading error); a file that
/// stops well short of its stated duration fails with `AVError.Code.fileFailedToParse`; damaged packets in the middle
/// of a file are skipped, as the `ffmpeg` tool skips them, rather than failing the read.
open class AVAssetReader: NSObject, @unchecked Sendable {
    /// The states of a reader.
    public enum Status: Int, @unchecked Sendable {
        /// Reading has not started.
        case unknown = 0
        /// Samples are being read.
        case reading = 1
        /// Every sample of the time range was read.
        case completed = 2
        /// Reading stopped on an error (see ``AVAssetReader/error``).
        case failed = 3
        /// Reading was cancelled with ``AVAssetReader/cancelReading()``.
        case cancelled = 4
    }

    /// The asset read.
    public let asset: AVAsset
    /// Status, error and time range, shared with the outputs (which hold it, not the reader: an app may let go of
    /// the reader while it reads an output).
    let session: AssetReaderSession
    /// The outputs added, in order; any thread. Not an engine command: a reader has no player engine.
    private let addedOutputs = Locked<[AVAssetReaderOutput]>([])

    /// A reader of `asset`.
    ///
    /// - Throws: the asset's loading error (an `AVError` in `AVFoundationErrorDomain`) when it cannot be opened.
    public init(asset: AVAsset) throws {
        _ = try asset.description()
        self.asset = asset
        session = AssetReaderSession(asset: asset)
        super.init()
    }

    /// The reader's state.
    open var status: Status { session.status }

    /// Why reading failed (`status == .failed`), else nil.
    open var error: (any Error)? { session.state.withLock { $0.error } }

    /// The part of the asset's timeline to read; by default all of it (zero to positive infinity). Set it before
    /// ``startReading()``.
    open var timeRange: CMTimeRange {
        get { session.state.withLock { $0.timeRange } }
        set {
            session.state.withLock { s in
                if s.status != .unknown { apiViolation("cannot change the time range once reading has started") }
                guard newValue.isValid, newValue.start.isNumeric, newValue.start >= .zero else {
                    apiViolation("the time range must be valid and start at or after zero")
                }
                s.timeRange = newValue
            }
        }
    }

    /// The outputs added.
    open var outputs: [AVAssetReaderOutput] { addedOutputs.withLock { $0 } }

    /// Whether `output` can be added: reading has not started, the output belongs to no reader, and its tracks are
    /// this reader's asset's.
    open func canAdd(_ output: AVAssetReaderOutput) -> Bool {
        guard status == .unknown, output.session == nil else { return false }
        return output.tracks.allSatisfy { $0.asset === asset }
    }

    /// Adds an output. Traps (Apple raises) when ``canAdd(_:)`` says no.
    open func add(_ output: AVAssetReaderOutput) {
        guard canAdd(output) else { apiViolation("cannot add this output: \(output)") }
        output.session = session
        addedOutputs.withLock { $0.append(output) }
        session.state.withLock { $0.outputs.append(ObjectIdentifier(output)) }
    }

    /// Starts reading: opens every output's track and decoder.
    ///
    /// - Returns: true when reading started; false when it could not (``status`` is then `failed` and ``error``
    ///   says why) or already had.
    @discardableResult
    open func startReading() -> Bool {
        let outputs = self.outputs
        let range = session.state.withLock { s -> CMTimeRange? in
            guard s.status == .unknown else { return nil }
            if s.outputs.isEmpty { apiViolation("add an output before starting to read") }
            s.status = .reading
            return s.timeRange
        }
        guard let range else { return false }
        for output in outputs {
            if let error = output.start(timeRange: range) {
                session.fail(error)
                return false
            }
        }
        return status == .reading
    }

    /// Cancels reading: outputs hand out nothing more, and I/O in progress returns at once.
    open func cancelReading() {
        session.cancel()
    }
}

/// What an asset reader shares with its outputs: the status machine, the error, the time range, and the token that
/// interrupts every output's I/O. Outputs hold it strongly and the reader only through it, so reading an output
/// goes on if the app lets go of the reader (and nothing holds a cycle).
final class AssetReaderSession: @unchecked Sendable {
    /// What the lock guards.
    struct State {
        var status: AVAssetReader.Status = .unknown
        var error: (any Error)?
        var timeRange = CMTimeRange(start: .zero, duration: .positiveInfinity)
        /// The outputs added.
        var outputs: [ObjectIdentifier] = []
        /// Outputs that handed out their last sample.
        var finished: Set<ObjectIdentifier> = []
    }

    /// The asset read (for messages).
    let asset: AVAsset
    /// Status, error, time range and outputs; any thread. Not an engine command: a reader has no player engine.
    let state = Locked(State())
    /// Interrupts every output's I/O on cancel or failure (shared by their engine readers).
    let cancellation = Cancellation()

    init(asset: AVAsset) {
        self.asset = asset
    }

    /// The reader's state.
    var status: AVAssetReader.Status { state.withLock { $0.status } }

    /// Cancels reading unless it already stopped.
    func cancel() {
        let changed = state.withLock { s -> Bool in
            guard s.status == .unknown || s.status == .reading else { return false }
            s.status = .cancelled
            return true
        }
        if changed { cancellation.cancel() }
    }

    /// Records `error` and fails the reader, unless it already stopped.
    func fail(_ error: any Error) {
        let changed = state.withLock { s -> Bool in
            guard s.status == .reading else { return false }
            s.status = .failed
            s.error = error
            return true
        }
        if changed { cancellation.cancel() }
    }

    /// Notes that an output handed out its last sample; the reader completes when every output has.
    func outputFinished(_ output: ObjectIdentifier) {
        state.withLock { s in
            s.finished.insert(output)
            if s.status == .reading, s.outputs.allSatisfy({ s.finished.contains($0) }) {
                s.status = .completed
            }
        }
    }
}
