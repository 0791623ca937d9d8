import Foundation
import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// Apple's display-link pull sample (AVPlayerItemOutput.h), in Swift: a 60 Hz `CVDisplayLink` pulls pictures with
/// `itemTime(for: inOutputTime)`, goes quiescent when nothing new comes, and restarts on
/// `outputMediaDataWillChange`.
private final class DisplayLinkPuller: AVPlayerItemOutputPullDelegate, @unchecked Sendable {
    /// How long without a new picture before the link stops (the sample's NON_QUIESCENT_PERIOD_IN_SECONDS).
    static let nonQuiescentPeriod = 0.25
    let output: AVPlayerItemVideoOutput
    let queue = DispatchQueue(label: "oavf.test.display-link-delegate")
    var link: CVDisplayLink!
    private let lock = ConditionLock()
    /// Guarded by `lock`.
    private var lastHostTime: UInt64 = 0
    private var indices: [Int?] = []
    private var asked: [Double] = []
    private var quiesced = 0
    private var restarted = 0

    init(output: AVPlayerItemVideoOutput) {
        self.output = output
    }

    var lastHost: UInt64 {
        get { lock.withLock { lastHostTime } }
        set { lock.withLock { lastHostTime = newValue } }
    }

    func pulled(_ index: Int?) { lock.withLock { indices.append(index) } }
    func asked(_ itemTime: CMTime) { lock.withLock { asked.append(itemTime.seconds) } }
    /// The item times the callbacks asked about, in order.
    var askedTimes: [Double] { lock.withLock { asked } }
    func noteQuiesced() { lock.withLock { quiesced += 1 } }
    var counts: (quiesced: Int, restarted: Int) { lock.withLock { (quiesced, restarted) } }
    var pulledIndices: [Int?] { lock.withLock { indices } }

    func outputMediaDataWillChange(_ sender: AVPlayerItemOutput) {
        // Start running again.
        lastHost = CVGetCurrentHostTime()
        if CVDisplayLinkStart(link) == kCVReturnSuccess { lock.withLock { restarted += 1 } }
    }
}

private func myDisplayCallback(
    _ displayLink: CVDisplayLink, _ inNow: UnsafePointer<CVTimeStamp>, _ inOutputTime: UnsafePointer<CVTimeStamp>,
    _ flagsIn: CVOptionFlags, _ flagsOut: UnsafeMutablePointer<CVOptionFlags>,
    _ displayLinkContext: UnsafeMutableRawPointer?
) -> CVReturn {
    let me = Unmanaged<DisplayLinkPuller>.fromOpaque(displayLinkContext!).takeUnretainedValue()
    let outputItemTime = me.output.itemTime(for: inOutputTime.pointee)
    me.asked(outputItemTime)
    if me.output.hasNewPixelBuffer(forItemTime: outputItemTime) {
        var presentationItemTime = CMTime.zero
        me.lastHost = inOutputTime.pointee.hostTime
        let pixBuff = me.output.copyPixelBuffer(
            forItemTime: outputItemTime, itemTimeForDisplay: &presentationItemTime)
        me.pulled(pixBuff.flatMap(frameIndex(of:)))
    } else {
        let now = inNow.pointee.hostTime
        let last = me.lastHost
        let elapsedTime = CMClockMakeHostTimeFromSystemUnits(now > last ? now - last : 0)
        if CMTimeGetSeconds(elapsedTime) > DisplayLinkPuller.nonQuiescentPeriod {
            // Stop before asking (the sample asks first): a notice delivered at once then restarts a stopped link
            // instead of racing the stop.
            CVDisplayLinkStop(displayLink)
            me.noteQuiesced()
            me.output.requestNotificationOfMediaDataChange(withAdvanceInterval: 0.03)
        }
    }
    return kCVReturnSuccess
}

final class VideoOutputDisplayLinkTests: XCTestCase {
    func test_hostTimeBases_agree() {
        let cv = CMClockMakeHostTimeFromSystemUnits(CVGetCurrentHostTime())
        let cm = CMClockGetTime(CMClockGetHostTimeClock())
        XCTAssertEqual(cm.seconds, cv.seconds, accuracy: 0.01)
        XCTAssertEqual(cv.timescale, 1_000_000_000)
    }

    func test_realTime_60HzDisplayLink_pullsEveryFrame_quiescesWhenPaused_restartsOnNewData() throws {
        setenv("SDL_AUDIODRIVER", "dummy", 1)
        defer { unsetenv("SDL_AUDIODRIVER") }
        let player = AVPlayer()
        let item = AVPlayerItem(url: try fixture(.videoOnly))
        let output = AVPlayerItemVideoOutput(pixelBufferAttributes: nil)
        let puller = DisplayLinkPuller(output: output)
        var link: CVDisplayLink?
        XCTAssertEqual(CVDisplayLinkCreateWithActiveCGDisplays(&link), kCVReturnSuccess)
        puller.link = try XCTUnwrap(link)
        CVDisplayLinkSetOutputCallback(puller.link, myDisplayCallback, Unmanaged.passUnretained(puller).toOpaque())
        item.add(output)
        output.setDelegate(puller, queue: puller.queue)
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        puller.lastHost = CVGetCurrentHostTime()
        CVDisplayLinkStart(puller.link)
        defer { CVDisplayLinkStop(puller.link) }
        player.play()
        waitUntil("1.2 s played", timeout: 10) { item.currentTime().seconds >= 1.2 }
        player.pause()
        // Paused: nothing new, so the link stops itself and waits for a notice.
        waitUntil("quiescent", timeout: 5) { puller.counts.quiesced >= 1 && !CVDisplayLinkIsRunning(puller.link) }
        let (quiescedBefore, restartsBefore) = puller.counts
        // Paused, the only thing that could still bring a picture (and so a notice) is the decoder working ahead:
        // once its queue is full it stops, and once the delegate queue has run what was sent to it, nothing is left
        // that could restart the link.
        let session = try XCTUnwrap(item.session)
        waitUntil("the decoder's picture queue full", timeout: 10) {
            guard let frames = session.videoFrames else { return true }
            return frames.count >= frames.capacity
        }
        puller.queue.sync {}
        XCTAssertFalse(CVDisplayLinkIsRunning(puller.link), "stays quiescent while paused")
        XCTAssertEqual(puller.counts.restarted, restartsBefore)
        player.play()
        waitUntil("restarted by outputMediaDataWillChange", timeout: 5) { puller.counts.restarted > restartsBefore }
        waitUntil("end", timeout: 10) { ends.count == 1 }
        // After the last picture the link goes quiescent again: every pull it made is in.
        waitUntil("quiescent after the end", timeout: 10) {
            puller.counts.quiesced > quiescedBefore && !CVDisplayLinkIsRunning(puller.link)
        }

        let pulled = puller.pulledIndices
        let seen = Set(pulled.compactMap { $0 })
        let missing = (0...89).filter { !seen.contains($0) }
        // Counted against what happened, not the wall clock: a picture can be missed only when the engine dropped it
        // as late, or when no callback asked for a time inside its 1/30 s (the link's thread ran late); a loaded
        // machine does both. Beyond those, at most 2.
        let asked = puller.askedTimes
        let dropped = player.playbackStatistics.framesDropped
        let unexplained = missing.filter { i in asked.contains { $0 >= Double(i) / 30 && $0 < Double(i + 1) / 30 } }
        print("display link pulled \(pulled.count) pictures; missing \(missing), \(dropped) dropped by the engine")
        XCTAssertLessThanOrEqual(
            unexplained.count, 2 + dropped, "missing frame indices \(missing) (asked in their time: \(unexplained))")
        XCTAssertEqual(pulled.filter { $0 == nil }.count, 0, "every pulled picture readable")
        let read = pulled.compactMap { $0 }
        XCTAssertEqual(read, read.sorted(), "in order")
        XCTAssertEqual(Set(read).count, read.count, "each picture pulled once")
    }
}
