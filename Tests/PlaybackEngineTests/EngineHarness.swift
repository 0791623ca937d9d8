import CoreMedia
import CoreVideo
import FFmpegBridge
import Foundation
import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

/// The one place engine tests depend on how a ``PlayerEngine`` and its ``ItemSession``s are made and how the
/// engine's output is observed. Everything else in the history and dump tests drives the engine through its
/// commands only (`setQueue`, `setRate`, `seek`, `step`, `setStreams`, `setEndAction`, `setForwardPlaybackEndTime`,
/// `setReversePlaybackEndTime`, `addPeriodicObserver`, `currentTime(of:)`, `statistics`, `shutdown()`), so a
/// refactor of the engine's core adapts this file and keeps the tests.
///
/// A harness owns one engine on a virtual clock (untimed or manual) with a ``CapturingAudioSink``, a
/// ``PictureRecorder`` attached as a video sink, and an ``EventHistory`` that receives every engine event as a short
/// string in which sessions are named A, B, … in the order ``makeSession(_:video:audio:)`` made them.
///
/// Waiting uses generous real-time limits only as a safety net against hangs; nothing asserts how long anything
/// took.
final class EngineHarness: @unchecked Sendable {
    let clock: VirtualClock
    let audio: CapturingAudioSink
    let engine: PlayerEngine
    let history: EventHistory
    let pictures: PictureRecorder
    private let names: SessionNames
    /// Every session made, stopped at ``shutdown()`` (also those that never joined the queue); guarded by `lock`.
    private var sessions: [ItemSession] = []
    private let lock = ConditionLock()

    /// How long a wait may take before the test fails: the one hang guard, ``Awaitable/hangGuard`` (seconds of real
    /// time; a wait that gets its event returns at once).
    static var timeout: TimeInterval { Awaitable<Void>.hangGuard }

    init(clock mode: VirtualClock.Mode = .untimed) {
        clock = VirtualClock(mode: mode)
        let audio = CapturingAudioSink()
        self.audio = audio
        names = SessionNames()
        history = EventHistory()
        pictures = PictureRecorder(names: names)
        engine = PlayerEngine(configuration: EngineConfiguration(virtualClock: clock, audioSink: { audio }))
        engine.onEvent = { [history, names] event, _ in history.record(Self.describe(event, names)) }
        engine.addVideoSink(pictures)
    }

    /// Stops the engine and every session made. Idempotent.
    func shutdown() {
        engine.shutdown()
        for s in lock.withLock({ sessions }) { s.stop() }
    }

    deinit {
        shutdown()
    }

    // MARK: Sessions

    /// A session playing `fixture`'s first video and first audio stream (either left out on request), described as
    /// the facade describes it: item time zero at the container's start, the duration of the longest played track.
    func makeSession(_ fixture: Fixture, video: Bool = true, audio: Bool = true) throws -> ItemSession {
        let path = try Fixtures.url(fixture).path
        let info = try FormatContext(url: path).info
        let videoStream = info.streams.first { $0.kind == .video && !$0.disposition.contains(.attachedPicture) }
        let audioStream = info.streams.first { $0.kind == .audio }
        let origin = CMTime(microseconds: max(0, info.startTimeMicroseconds ?? 0))
        let played = [video ? videoStream : nil, audio ? audioStream : nil].compactMap { $0 }
        let duration = played.map { Self.end(of: $0, info: info, origin: origin) }.max() ?? .indefinite
        var descriptor = ItemDescriptor(
            location: path, videoStream: video ? videoStream?.index : nil,
            audioStream: audio ? audioStream?.index : nil,
            timeOrigin: origin, duration: duration)
        descriptor.durationIsExact = !info.durationFromBitrate
        return register(ItemSession(descriptor: descriptor, audioFormat: engine.audioFormat))
    }

    /// A session for `location` that is not probed first (a missing or non-media file: preparing it fails).
    func makeSession(location: String) -> ItemSession {
        let descriptor = ItemDescriptor(location: location, videoStream: 0, audioStream: nil, duration: .indefinite)
        return register(ItemSession(descriptor: descriptor, audioFormat: engine.audioFormat))
    }

    private func register(_ session: ItemSession) -> ItemSession {
        lock.withLock { sessions.append(session) }
        names.add(session)
        return session
    }

    /// Where `stream` ends in item time: its own duration when the container states one, else the container's
    /// (Matroska), in the stream's timescale.
    private static func end(of stream: StreamInfo, info: MediaInfo, origin: CMTime) -> CMTime {
        let tb = stream.timeBase
        let start = stream.startTime.map { max(.zero, CMTime(ffmpeg: $0, timeBase: tb) - origin) } ?? .zero
        if let d = stream.duration { return start + CMTime(ffmpeg: d, timeBase: tb) }
        guard let total = info.durationMicroseconds else { return .indefinite }
        let timescale = tb.num == 1 ? tb.den : 1_000_000
        return CMTimeConvertScale(CMTime(microseconds: total) - origin, timescale: timescale, method: .default)
    }

    /// The name of `session` in histories and dumps (A, B, …).
    func name(of session: ItemSession) -> String { names.name(of: session) }

    // MARK: Recording

    /// A seek completion that records `seek(true)` or `seek(false)` in the history.
    var seekCompletion: @Sendable (Bool) -> Void {
        { [history] finished in history.record("seek(\(finished))") }
    }

    /// Adds a periodic time observer that records `periodic(value/timescale)` in the history.
    @discardableResult
    func observePeriodically(every interval: CMTime) -> UInt64 {
        engine.addPeriodicObserver(interval: interval) { [history] time in
            history.record("periodic(\(PlaybackDump.exact(time)))")
        }
    }

    /// The history's short form of `event` (see ``EventHistory``).
    static func describe(_ event: EngineEvent, _ names: SessionNames) -> String {
        switch event {
        case .itemReady(let s): return "itemReady(\(names.name(of: s)))"
        case .itemFailed(let s, _): return "itemFailed(\(names.name(of: s)))"
        case .itemPlayedToEnd(let s): return "itemPlayedToEnd(\(names.name(of: s)))"
        case .itemFailedToPlayToEnd(let s, _): return "itemFailedToPlayToEnd(\(names.name(of: s)))"
        case .currentItemChanged(let from, let to):
            return "currentItemChanged(\(from.map(names.name) ?? "none")→\(to.map(names.name) ?? "none"))"
        case .timeControlChanged(let t):
            switch t {
            case .paused: return "timeControl(paused)"
            case .playing: return "timeControl(playing)"
            case .waiting(let reason): return "timeControl(waiting(\(reason)))"
            }
        case .rateChanged(let rate): return "rateChanged(\(rate))"
        case .timeJumped(let s): return "timeJumped(\(names.name(of: s)))"
        case .stalled(let s): return "stalled(\(names.name(of: s)))"
        case .bufferChanged(let s, _): return "\(EventHistory.bufferChangedPrefix)\(names.name(of: s)))"
        case .variantChanged(let s): return "variantChanged(\(names.name(of: s)))"
        case .audioDeviceUnavailable: return "audioDeviceUnavailable"
        case .audioDeviceFailed(_, let lost): return "audioDeviceFailed(lost: \(lost))"
        }
    }

    /// The pictures and audio recorded so far as a playback dump.
    func dump(
        scenario: String, notes: [String] = [], audio detail: PlaybackDump.AudioDetail = .hashes
    ) -> PlaybackDump {
        var dump = PlaybackDump(scenario: scenario, notes: notes)
        for p in pictures.entries { dump.addPicture(item: p.item, time: p.time, frameIndex: p.frameIndex) }
        let samples = audio.samples
        if let format = audio.format, !samples.isEmpty {
            dump.setAudio(samples, sampleRate: format.sampleRate, channelCount: format.channelCount, detail: detail)
        }
        return dump
    }

    /// Forgets the pictures and audio recorded so far (the dump then starts from here).
    func resetRecording() {
        pictures.reset()
        audio.reset()
    }

    // MARK: Waiting

    /// Waits until the history (without `bufferChanged`) holds `entry` `count` times; fails the test otherwise.
    func wait(
        for entry: String, count: Int = 1, file: StaticString = #filePath, line: UInt = #line
    ) {
        if !history.wait(timeout: Self.timeout, until: { $0.filter { $0 == entry }.count >= count }) {
            XCTFail("timed out waiting for \(entry) ×\(count); history: \(history.entries)", file: file, line: line)
        }
    }

    /// Manual clock: moves time on by `interval`, again and again, until the history holds `entry`; fails the test
    /// after ``timeout``. For runs where the number of moves depends on when the engine steps (the history must not).
    func advanceClock(
        by interval: CMTime, until entry: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        // Each move waits up to 0.2 s for the entry (it returns as soon as the entry is recorded), then moves again.
        let reached = Poll.until {
            clock.advance(by: interval)
            return history.wait(timeout: 0.2, until: { $0.contains(entry) })
        }
        if reached { return }
        XCTFail("timed out moving the clock until \(entry); history: \(history.entries)", file: file, line: line)
    }

    /// Waits until `session`'s video decoder has filled its picture queue or finished (it decodes ahead, and pictures
    /// decoded while paused go into the picture cache): what the next step costs and where it lands then does not
    /// depend on how far the decoder got under load.
    func waitForDecoderToSettle(_ session: ItemSession, file: StaticString = #filePath, line: UInt = #line) {
        let settled = Poll.until {
            guard let frames = session.videoFrames else { return true }
            return frames.count >= frames.capacity || session.isVideoDecoderFinished
        }
        if !settled { XCTFail("timed out waiting for the decoder to settle", file: file, line: line) }
    }

    /// Waits until the picture recorder has `count` pictures; fails the test otherwise.
    func waitForPictures(_ count: Int, file: StaticString = #filePath, line: UInt = #line) {
        if !pictures.wait(forCount: count) {
            XCTFail("timed out waiting for \(count) pictures, have \(pictures.entries.count)", file: file, line: line)
        }
    }

    /// The history once no entry has been added for `quiet` seconds: a wait for late events that should not come,
    /// so a history is compared whole. (Only how long to listen is timed; nothing asserts a duration.)
    func settledHistory(quiet: TimeInterval = 0.15) -> [String] {
        history.settle(quiet: quiet, timeout: Self.timeout)
        return history.entries
    }
}

/// Names sessions A, B, … in the order they were made. Thread-safe.
final class SessionNames: @unchecked Sendable {
    private let lock = ConditionLock()
    private var names: [ObjectIdentifier: String] = [:]

    func add(_ session: ItemSession) {
        lock.withLock {
            let letter = UnicodeScalar(UInt8(65 + names.count % 26))
            names[ObjectIdentifier(session)] = String(Character(letter))
        }
    }

    /// The session's name, `?` for one the harness did not make.
    func name(of session: ItemSession) -> String {
        lock.withLock { names[ObjectIdentifier(session)] ?? "?" }
    }
}

/// Every engine event and seek completion as a short string, in the order they arrived (OpenCombine's
/// `TrackingSubscriber.history`): `itemReady(A)`, `timeControl(playing)`, `rateChanged(0.0)`,
/// `itemPlayedToEnd(A)`, `currentItemChanged(A→B)`, `timeJumped(A)`, `seek(true)`, `periodic(1/2)`, ….
///
/// `bufferChanged` events depend on how far the demuxer has read when the engine looks, so ``entries`` leaves them
/// out; ``allEntries`` keeps them. Thread-safe; actions registered with ``perform(when:_:)`` run on the thread that
/// records the entry (the engine thread for events), before it records anything else.
final class EventHistory: @unchecked Sendable {
    static let bufferChangedPrefix = "bufferChanged("

    private let condition = ConditionLock()
    private var all: [String] = []
    private var actions: [(entry: String, action: @Sendable () -> Void)] = []
    /// When the last entry was recorded (monotonic nanoseconds), for ``settle(quiet:timeout:)``.
    private var lastChange = DispatchTime.now().uptimeNanoseconds

    func record(_ entry: String) {
        condition.lock()
        all.append(entry)
        lastChange = DispatchTime.now().uptimeNanoseconds
        let due = actions.filter { $0.entry == entry }.map(\.action)
        actions.removeAll { $0.entry == entry }
        condition.broadcast()
        condition.unlock()
        for action in due { action() }
    }

    /// Runs `action` once, right after `entry` is next recorded, on the recording thread. For an engine event that is
    /// the engine thread while it delivers events: commands given there reach the engine together, before its next
    /// step (e.g. two seeks that must both be pending at once).
    func perform(when entry: String, _ action: @escaping @Sendable () -> Void) {
        condition.withLock { actions.append((entry, action)) }
    }

    /// The history without `bufferChanged`.
    var entries: [String] {
        condition.withLock { all.filter { !$0.hasPrefix(Self.bufferChangedPrefix) } }
    }

    /// Everything recorded.
    var allEntries: [String] { condition.withLock { all } }

    /// Waits until `condition` holds for ``entries``; false on timeout.
    func wait(timeout: TimeInterval, until predicate: ([String]) -> Bool) -> Bool {
        condition.withLock {
            condition.wait(timeout: timeout) { predicate(all.filter { !$0.hasPrefix(Self.bufferChangedPrefix) }) }
        }
    }

    /// Waits until nothing was recorded for `quiet` seconds (at most `timeout`). Real time by nature: it listens for
    /// events that should not come, and there is no event for "no more events".
    func settle(quiet: TimeInterval, timeout: TimeInterval) {
        let start = DispatchTime.now().uptimeNanoseconds
        let quietNanoseconds = UInt64(quiet * 1e9)
        condition.lock()
        defer { condition.unlock() }
        while Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 < timeout {
            let now = DispatchTime.now().uptimeNanoseconds
            let quietUntil = lastChange + quietNanoseconds
            if now >= quietUntil { return }
            condition.wait(timeout: Double(quietUntil - now) / 1e9)
        }
    }
}

/// Records every picture the engine presents: the session's name, the item time, the frame index in its pixels.
final class PictureRecorder: VideoFrameSink, @unchecked Sendable {
    struct Entry: Equatable {
        var item: String
        var time: CMTime
        var frameIndex: Int?
    }

    private let names: SessionNames
    /// What was presented; waited on by ``wait(forCount:)``.
    private let storage = Awaitable<[Entry]>([])

    init(names: SessionNames) {
        self.names = names
    }

    func present(_ frame: VideoFrame, itemTime: CMTime, session: ItemSession) {
        let entry = Entry(item: names.name(of: session), time: itemTime, frameIndex: frameIndex(of: frame.pixelBuffer))
        storage.update { $0.append(entry) }
    }

    func flush(session: ItemSession?) {}

    var entries: [Entry] { storage.current }

    /// Waits until `count` pictures were recorded; false if they were not (a hang).
    func wait(forCount count: Int) -> Bool {
        storage.wait { $0.count >= count }
    }

    /// Forgets what was recorded.
    func reset() { storage.update { $0.removeAll() } }
}
