import OAVFLocking
import PlaybackEngine
import Synchronization
import TestSupport
import XCTest

@testable import AVFoundation

/// Playback against real decoded media on an untimed virtual clock: a 10 s clip plays in well
/// under a second, every frame and every sample accounted for.
final class AVPlayerPlaybackTests: XCTestCase {
    func test_status_staysUnknownUntilTheItemJoinsAPlayer() throws {
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        spinMainRunLoop(0.2)
        XCTAssertEqual(item.status, .unknown)
        XCTAssertEqual(item.duration.isIndefinite, true)
        XCTAssertEqual(item.presentationSize, .zero)
        XCTAssertTrue(item.tracks.isEmpty)
        XCTAssertEqual(item.asset.statusOfValue(forKey: "duration", error: nil), .unknown)

        let v = VirtualPlayer()
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        XCTAssertEqual(item.duration, CMTime(value: 153_600, timescale: 15_360))
        XCTAssertEqual(item.presentationSize, CGSize(width: 320, height: 240))
        XCTAssertEqual(item.tracks.count, 2)
        XCTAssertTrue(item.tracks.allSatisfy(\.isEnabled))
        XCTAssertEqual(
            item.seekableTimeRanges.map(\.timeRangeValue), [CMTimeRange(start: .zero, duration: item.duration)])
        XCTAssertEqual(v.player.status, .readyToPlay)
        XCTAssertEqual(v.player.timeControlStatus, .paused)
    }

    func test_playToEnd_everyFramePresentedInOrder_everySampleDelivered() throws {
        let v = VirtualPlayer()
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        v.player.play()
        waitUntil("end") { ends.count >= 1 }
        settle(v.player)

        XCTAssertEqual(ends.count, 1, "DidPlayToEndTime exactly once")
        XCTAssertEqual(item.currentTime(), item.duration)
        XCTAssertEqual(v.player.rate, 0, "actionAtItemEnd .pause sets the rate to 0")
        XCTAssertEqual(v.player.timeControlStatus, .paused)

        // Every frame, in order, none dropped.
        XCTAssertEqual(v.frames.indices, (0..<300).map { Optional($0) })
        XCTAssertEqual(v.player.playbackStatistics.framesDropped, 0)
        let times = v.frames.entries.map { $0.time.seconds }
        for (i, t) in times.enumerated() { XCTAssertEqual(t, Double(i) / 30, accuracy: 1e-6) }

        // Every audio sample: 10 s of 440/660 Hz with no gap or click.
        let samples = v.audio.samples
        let frames = samples.count / 2
        XCTAssertEqual(Double(frames), 480_000, accuracy: 1024, "all 10 s of audio rendered")
        let tones = ToneAnalyzer.analyze(
            interleaved: Array(samples.prefix(48_000 * 2)), channelCount: 2, sampleRate: 48_000)
        XCTAssertEqual(tones[0].frequency ?? 0, 440, accuracy: 2)
        XCTAssertEqual(tones[1].frequency ?? 0, 660, accuracy: 3)
        let left = ToneAnalyzer.deinterleave(samples, channelCount: 2)[0]
        // Skip the encoder's first and last AAC frames (priming and padding fade).
        let middle = Array(left[2048..<(left.count - 2048)])
        XCTAssertEqual(ToneAnalyzer.discontinuities(in: middle, sampleRate: 48_000, frequency: 440), [])
    }

    func test_periodicObserver_firesEveryHalfSecondPlusStartAndStop() throws {
        let v = VirtualPlayer()
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        let times = Locked<[Double]>([])
        let token = v.player.addPeriodicTimeObserver(
            forInterval: CMTime(value: 1, timescale: 2), queue: .main
        ) { t in times.withLock { $0.append(t.seconds) } }
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        v.player.play()
        waitUntil("end") { ends.count == 1 }
        settle(v.player)
        v.player.removeTimeObserver(token)
        let fired = times.withLock { $0 }
        // Start at 0, one per crossing of 0.5, 1.0, … 10.0 (the stop at 10.0 is the same time).
        XCTAssertEqual(fired.first ?? -1, 0, accuracy: 1e-9)
        XCTAssertEqual(fired.count, 21, "\(fired)")
        for (k, t) in fired.dropFirst().enumerated() {
            XCTAssertGreaterThanOrEqual(t + 1e-9, Double(k + 1) * 0.5)
            XCTAssertLessThan(t, Double(k + 1) * 0.5 + 0.05)
        }
        XCTAssertEqual(fired.last ?? 0, 10, accuracy: 1e-9)
    }

    func test_boundaryObservers_fireOnceEach_notWhenASeekJumpsOverThem() throws {
        let v = VirtualPlayer()
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        let fired = Locked<[String]>([])
        let a = v.player.addBoundaryTimeObserver(forTimes: [NSValue(time: CMTime(value: 2, timescale: 1))], queue: nil)
        {
            fired.withLock { $0.append("2s") }
        }
        let b = v.player.addBoundaryTimeObserver(forTimes: [NSValue(time: CMTime(value: 5, timescale: 1))], queue: nil)
        {
            fired.withLock { $0.append("5s") }
        }
        let c = v.player.addBoundaryTimeObserver(forTimes: [NSValue(time: CMTime(value: 9, timescale: 1))], queue: nil)
        {
            fired.withLock { $0.append("9s") }
        }
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        // Jump over 2 s and 5 s while paused, then play through 9 s.
        let sought = expectation(description: "seek")
        item.seek(to: CMTime(value: 6, timescale: 1), toleranceBefore: .zero, toleranceAfter: .zero) { ok in
            XCTAssertTrue(ok)
            sought.fulfill()
        }
        wait(for: [sought], timeout: 10)
        XCTAssertEqual(item.currentTime(), CMTime(value: 6, timescale: 1))
        v.player.play()
        waitUntil("end") { ends.count == 1 }
        settle(v.player)
        XCTAssertEqual(fired.withLock { $0 }, ["9s"])
        for t in [a, b, c] { v.player.removeTimeObserver(t) }
        // The exact seek presented frame 180 (6 s × 30 fps) first, then continued in order.
        let after = v.frames.indices.drop { $0 != 180 }
        XCTAssertEqual(Array(after.prefix(3)), [180, 181, 182])
    }

    func test_rateChanges_reflectInTimeControlStatus() throws {
        let v = VirtualPlayer(mode: .manual)
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        XCTAssertEqual(v.player.timeControlStatus, .paused)
        v.player.rate = 1
        XCTAssertEqual(v.player.timeControlStatus, .waitingToPlayAtSpecifiedRate)
        XCTAssertEqual(v.player.reasonForWaitingToPlay, .noItemToPlay)
        v.player.replaceCurrentItem(with: item)
        waitUntil("playing") { v.player.timeControlStatus == .playing }
        XCTAssertNil(v.player.reasonForWaitingToPlay)
        v.clock.advance(by: CMTime(value: 1, timescale: 1))
        waitUntil("one second played") { item.currentTime().seconds >= 0.99 }
        v.player.rate = 0
        XCTAssertEqual(v.player.timeControlStatus, .paused)
        let paused = item.currentTime()
        v.clock.advance(by: CMTime(value: 1, timescale: 1))
        settle(v.player)
        XCTAssertEqual(item.currentTime(), paused, "time stands still while paused")
        v.player.rate = 2
        waitUntil("playing at 2") { v.player.timeControlStatus == .playing }
        v.clock.advance(by: CMTime(value: 1, timescale: 1))
        waitUntil("two more seconds") { item.currentTime().seconds >= paused.seconds + 1.99 }
        XCTAssertEqual(item.currentTime().seconds, paused.seconds + 2, accuracy: 0.05)
        v.player.pause()
        XCTAssertEqual(v.player.rate, 0)
        XCTAssertEqual(v.player.timeControlStatus, .paused)
        v.player.defaultRate = 0.5
        v.player.play()
        XCTAssertEqual(v.player.rate, 0.5)
    }

    func test_pauseWhileTheEngineIsBehindItsClock_showsThePictureAtThePausedTime() throws {
        // The manual clock moves a second at once and the player pauses in the same breath: the engine takes the
        // pause before it has caught up, so the playhead freezes a second on with an earlier picture on screen. The
        // picture at the paused time must follow (it stayed behind: a whole-suite ThreadSanitizer run, where the
        // engine lags like this, waited for it in vain).
        let v = VirtualPlayer(mode: .manual)
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        v.player.replaceCurrentItem(with: item)
        v.player.play()
        waitUntil("playing") { v.player.timeControlStatus == .playing }
        for round in 1...3 {
            v.clock.advance(by: CMTime(value: 1, timescale: 1))
            v.player.pause()
            let paused = item.currentTime()
            XCTAssertEqual(paused.seconds, Double(round), accuracy: 0.001)
            waitUntil("the picture at \(paused.seconds) s") {
                v.frames.entries.last.map { $0.time <= paused && $0.time + CMTime(value: 1, timescale: 30) > paused }
                    ?? false
            }
            XCTAssertEqual(v.frames.indices.last ?? nil, 30 * round)
            XCTAssertEqual(item.currentTime(), paused)
            v.player.play()
            waitUntil("playing again") { v.player.timeControlStatus == .playing }
        }
    }

    func test_setRateTimeAtHostTime_waitsForTheHostTime_thenPlaysFromTheItemTime() throws {
        let v = VirtualPlayer(mode: .manual)
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        v.player.automaticallyWaitsToMinimizeStalling = false
        let start = v.clock.time + CMTime(value: 1, timescale: 1)
        v.player.setRate(1, time: CMTime(value: 5, timescale: 1), atHostTime: start)
        XCTAssertEqual(v.player.rate, 1)
        waitUntil("frame 150 (5 s) shown") { v.frames.indices.last == 150 }
        v.clock.advance(by: CMTime(value: 1, timescale: 2))
        settle(v.player)
        XCTAssertEqual(item.currentTime(), CMTime(value: 5, timescale: 1), "holds until the host time")
        XCTAssertEqual(v.player.timeControlStatus, .waitingToPlayAtSpecifiedRate)
        // One second after the host time: 6 s, frame 180.
        v.clock.advance(by: CMTime(value: 3, timescale: 2))
        waitUntil("frame 180 (6 s)") { v.frames.indices.last == 180 }
        XCTAssertEqual(item.currentTime().seconds, 6, accuracy: 0.001)
        waitUntil("playing") { v.player.timeControlStatus == .playing }
        // playImmediately reports playing at once for a ready item.
        v.player.pause()
        v.player.playImmediately(atRate: 1)
        XCTAssertEqual(v.player.timeControlStatus, .playing)
    }

    func test_timebase_followsThePlayback_andIsReadOnly() throws {
        let v = VirtualPlayer(mode: .manual)
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        XCTAssertNil(item.timebase)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        let timebase = try XCTUnwrap(item.timebase)
        XCTAssertTrue(item.timebase === timebase)
        XCTAssertEqual(CMTimebaseGetRate(timebase), 0)
        v.player.play()
        waitUntil("playing") { v.player.timeControlStatus == .playing }
        v.clock.advance(by: CMTime(value: 2, timescale: 1))
        waitUntil("2 s") { CMTimebaseGetTime(timebase) >= CMTime(value: 2, timescale: 1) }
        XCTAssertEqual(timebase.rate, 1)
        XCTAssertEqual(CMTimebaseSetRate(timebase, rate: 2), kCMTimebaseError_ReadOnly)
        XCTAssertThrowsError(try timebase.setTime(.zero))
        // A timebase of one's own on the host clock.
        let own = try CMTimebase(sourceClock: CMClockGetHostTimeClock())
        XCTAssertEqual(own.time, .zero)
        try own.setTime(CMTime(value: 10, timescale: 1))
        try own.setRate(1)
        usleep(20_000)  // real time by design: a timebase on the host clock must advance with it
        XCTAssertGreaterThan(own.time.seconds, 10.01)
        XCTAssertLessThan(own.time.seconds, 11)
    }

    func test_actionAtItemEnd_none_keepsRateAndItem() throws {
        let v = VirtualPlayer()
        let item = AVPlayerItem(url: try fixture(.videoOnly))
        v.player.actionAtItemEnd = .none
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        v.player.play()
        waitUntil("end") { ends.count == 1 }
        settle(v.player)
        XCTAssertEqual(v.player.rate, 1)
        XCTAssertTrue(v.player.currentItem === item)
        XCTAssertEqual(item.currentTime(), item.duration)
        XCTAssertEqual(v.frames.indices, (0..<90).map { Optional($0) })
    }

    func test_forwardPlaybackEndTime_endsThereWithTheNotification() throws {
        let v = VirtualPlayer()
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        item.forwardPlaybackEndTime = CMTime(value: 3, timescale: 1)
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        v.player.play()
        waitUntil("end") { ends.count == 1 }
        XCTAssertEqual(item.currentTime(), CMTime(value: 3, timescale: 1))
        XCTAssertEqual(v.frames.indices.last ?? nil, 90)
    }

    func test_audioOnlyAndVideoOnly_play() throws {
        for f in [Fixture.audioOnly, .videoOnly, .audioWAV, .hevcMKV, .vp9OpusWebM, .h264AACTS] {
            let v = VirtualPlayer()
            let item = AVPlayerItem(url: try fixture(f))
            let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
            v.player.replaceCurrentItem(with: item)
            v.player.play()
            waitUntil("\(f.rawValue) end") { ends.count == 1 }
            XCTAssertEqual(item.currentTime(), item.duration, f.rawValue)
            if f.facts.video != nil {
                XCTAssertEqual(v.frames.indices.first ?? nil, 0, f.rawValue)
                XCTAssertEqual(v.frames.indices.compactMap { $0 }, Array(0..<v.frames.indices.count), f.rawValue)
            }
            if !f.facts.audio.isEmpty {
                XCTAssertEqual(
                    Double(v.audio.samples.count / 2) / 48_000, f.facts.duration ?? 0, accuracy: 0.1, f.rawValue)
            }
        }
    }

    func test_badInputs_failTheItemWithTheirError() throws {
        let rows: [(Fixture, AVError.Code)] = [
            (.empty, .fileFormatNotRecognized), (.text, .fileFormatNotRecognized), (.truncated, .fileFailedToParse),
            (.unknownCodec, .decoderNotFound),
        ]
        for (f, code) in rows {
            let v = VirtualPlayer()
            let item = AVPlayerItem(url: try fixture(f))
            v.player.replaceCurrentItem(with: item)
            v.player.play()
            waitUntil("\(f.rawValue) fails") { item.status == .failed }
            let error = try XCTUnwrap(item.error) as NSError
            XCTAssertEqual(error.domain, AVFoundationErrorDomain)
            XCTAssertEqual(error.code, code.rawValue, "\(f.rawValue): \(error.localizedDescription)")
            XCTAssertNotNil(item.errorLog(), f.rawValue)
            XCTAssertEqual(v.player.timeControlStatus, .waitingToPlayAtSpecifiedRate)
        }
    }

    func test_oneItemInTwoPlayers_isRefusedByCanInsert() throws {
        let item = AVPlayerItem(url: try fixture(.videoOnly))
        let a = VirtualPlayer()
        a.player.replaceCurrentItem(with: item)
        let q = AVQueuePlayer()
        XCTAssertFalse(q.canInsert(item, after: nil))
    }
}

final class AVPlayerDamagedMediaTests: XCTestCase {
    func test_truncatedFile_failsToPlayToEnd_afterPlayingWhatItHas() throws {
        let v = VirtualPlayer()
        let item = AVPlayerItem(url: try fixture(.truncatedFaststart))
        let failed = NotificationLog(AVPlayerItem.failedToPlayToEndTimeNotification, object: item)
        let ended = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        v.player.play()
        waitUntil("failure") { failed.count == 1 }
        settle(v.player)
        XCTAssertEqual(ended.count, 0)
        let error = try XCTUnwrap(
            failed.notifications.first?.userInfo?[AVPlayerItemFailedToPlayToEndTimeErrorKey] as? NSError)
        XCTAssertEqual(error.domain, AVFoundationErrorDomain)
        XCTAssertEqual(error.code, AVError.Code.failedToLoadMediaData.rawValue)
        XCTAssertTrue(error.localizedDescription.contains("ends early"), error.localizedDescription)
        XCTAssertEqual(item.status, .failed)
        XCTAssertEqual(v.player.rate, 0)
        // It played what was there, in order.
        let indices = v.frames.indices.compactMap { $0 }
        XCTAssertEqual(indices, Array(0..<indices.count))
        XCTAssertGreaterThan(indices.count, 170)
    }

    func test_corruptMiddle_playsToTheEnd_skippingWhatCannotBeDecoded() throws {
        let v = VirtualPlayer()
        let item = AVPlayerItem(url: try fixture(.corruptMiddle))
        let ended = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        v.player.play()
        waitUntil("end") { ended.count == 1 }
        XCTAssertEqual(item.status, .readyToPlay)
        XCTAssertEqual(item.currentTime(), item.duration)
        // Frames go up in time order; the damaged GOP's pictures are concealed by the decoder (their
        // drawn indices are unreliable), and the next GOP (frames 180…299) is intact.
        let times = v.frames.entries.map(\.time)
        XCTAssertEqual(times, times.sorted())
        XCTAssertEqual(Set(times).count, times.count)
        XCTAssertGreaterThan(times.count, 280)
        let tail = v.frames.indices.suffix(120)
        XCTAssertEqual(Array(tail), (180..<300).map { Optional($0) })
        XCTAssertEqual(Array(v.frames.indices.prefix(120)), (0..<120).map { Optional($0) })
    }
}

final class AVPlayerMediaSelectionPlaybackTests: XCTestCase {
    /// Switching English → French at 2 s continues from the same time with no gap longer than one
    /// audio buffer: 440 Hz before, 550 Hz after, 5 s of audio in all.
    func test_switchAudibleOption_midPlay_continuesWithoutAGap() throws {
        let v = VirtualPlayer(mode: .manual)
        let item = AVPlayerItem(url: try fixture(.multiAudioSubtitles))
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        let jumps = NotificationLog(AVPlayerItem.timeJumpedNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        let group = try XCTUnwrap(item.asset.mediaSelectionGroup(forMediaCharacteristic: .audible))
        XCTAssertEqual(item.currentMediaSelection.selectedMediaOption(in: group)?.displayName, "English")
        v.player.play()
        v.clock.advance(by: CMTime(value: 2, timescale: 1))
        waitUntil("two seconds") { item.currentTime() >= CMTime(value: 2, timescale: 1) }
        waitUntil("two seconds of audio") { v.audio.frameCount >= 96_000 }
        let french = try XCTUnwrap(group.options.first { $0.extendedLanguageTag == "fr" })
        item.select(french, in: group)
        XCTAssertEqual(item.currentMediaSelection.selectedMediaOption(in: group), french)
        XCTAssertFalse(item.currentMediaSelection.mediaSelectionCriteriaCanBeAppliedAutomatically(to: group))
        v.clock.advance(by: CMTime(value: 4, timescale: 1))
        waitUntil("end") { ends.count == 1 }
        settle(v.player)
        XCTAssertEqual(jumps.count, 0, "a stream switch is not a time jump")

        let left = ToneAnalyzer.deinterleave(v.audio.samples, channelCount: 2)[0]
        XCTAssertEqual(Double(left.count), Double(item.duration.seconds * 48_000), accuracy: 1024)
        let before = Array(left[48_000..<96_000])
        let after = Array(left[100_000..<148_000])
        XCTAssertEqual(ToneAnalyzer.dominantFrequency(of: before, sampleRate: 48_000) ?? 0, 440, accuracy: 2)
        XCTAssertEqual(ToneAnalyzer.dominantFrequency(of: after, sampleRate: 48_000) ?? 0, 550, accuracy: 2)
        let seam = Array(left[90_000..<106_000])
        let gaps = ToneAnalyzer.discontinuities(in: seam, sampleRate: 48_000, frequency: 550).filter {
            $0.kind == .silence
        }
        for g in gaps { XCTAssertLessThanOrEqual(g.samples.count, 1024) }
        // Video went on in order through the switch.
        let indices = v.frames.indices.compactMap { $0 }
        XCTAssertEqual(indices, Array(0..<indices.count))
    }

    /// French from the start, then back to automatic selection at 2 s: the default (English, 440 Hz) plays on live.
    func test_selectAutomatically_midPlay_returnsToTheDefaultOption() throws {
        let v = VirtualPlayer(mode: .manual)
        let item = AVPlayerItem(url: try fixture(.multiAudioSubtitles))
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        let changes = NotificationLog(AVPlayerItem.mediaSelectionDidChangeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        let group = try XCTUnwrap(item.asset.mediaSelectionGroup(forMediaCharacteristic: .audible))
        let french = try XCTUnwrap(group.options.first { $0.extendedLanguageTag == "fr" })
        // play() at once after the selection: the switch and the start race on the engine thread.
        item.select(french, in: group)
        v.player.play()
        v.clock.advance(by: CMTime(value: 2, timescale: 1))
        waitUntil("two seconds of audio") { v.audio.frameCount >= 96_000 }
        item.selectMediaOptionAutomatically(in: group)
        XCTAssertEqual(item.currentMediaSelection.selectedMediaOption(in: group)?.displayName, "English")
        v.clock.advance(by: CMTime(value: 4, timescale: 1))
        waitUntil("end") { ends.count == 1 }
        settle(v.player)
        XCTAssertEqual(changes.count, 2)
        let left = ToneAnalyzer.deinterleave(v.audio.samples, channelCount: 2)[0]
        XCTAssertEqual(
            ToneAnalyzer.dominantFrequency(of: Array(left[48_000..<96_000]), sampleRate: 48_000) ?? 0, 550, accuracy: 2)
        XCTAssertEqual(
            ToneAnalyzer.dominantFrequency(of: Array(left[110_000..<158_000]), sampleRate: 48_000) ?? 0, 440,
            accuracy: 2)
    }

    /// Criteria preferring French choose the French track when the item becomes ready (550 Hz plays), without
    /// counting as an explicit choice; an explicit choice wins over them.
    func test_selectionCriteria_chooseTheFrenchTrack_unlessTheAppChose() throws {
        let v = VirtualPlayer()
        v.player.setMediaSelectionCriteria(
            AVPlayerMediaSelectionCriteria(preferredLanguages: ["fr"], preferredMediaCharacteristics: nil),
            forMediaCharacteristic: .audible)
        let item = AVPlayerItem(url: try fixture(.multiAudioSubtitles))
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        let group = try XCTUnwrap(item.asset.mediaSelectionGroup(forMediaCharacteristic: .audible))
        XCTAssertEqual(item.currentMediaSelection.selectedMediaOption(in: group)?.extendedLanguageTag, "fr")
        XCTAssertTrue(item.currentMediaSelection.mediaSelectionCriteriaCanBeAppliedAutomatically(to: group))
        v.player.play()
        waitUntil("end") { ends.count == 1 }
        let left = ToneAnalyzer.deinterleave(v.audio.samples, channelCount: 2)[0]
        XCTAssertEqual(
            ToneAnalyzer.dominantFrequency(of: Array(left[48_000..<96_000]), sampleRate: 48_000) ?? 0, 550, accuracy: 2)

        // An explicit English choice is kept when the criteria change.
        let english = try XCTUnwrap(group.options.first { $0.extendedLanguageTag == "en" })
        item.select(english, in: group)
        v.player.setMediaSelectionCriteria(
            AVPlayerMediaSelectionCriteria(preferredLanguages: ["fr"], preferredMediaCharacteristics: nil),
            forMediaCharacteristic: .audible)
        XCTAssertEqual(item.currentMediaSelection.selectedMediaOption(in: group), english)
    }

    /// A manual-clock player that has played the first second of the clip with sound.
    private func playingItsFirstSecond() throws -> (VirtualPlayer, AVPlayerItem) {
        let v = VirtualPlayer(mode: .manual)
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        v.player.play()
        v.clock.advance(by: CMTime(value: 1, timescale: 1))
        waitUntil("one second of audio") { v.audio.frameCount >= 48_000 }
        return (v, item)
    }

    func test_disablingTheAudioTrack_silencesIt_disablingVideoStopsFrames() throws {
        let (v, item) = try playingItsFirstSecond()
        let audioTrack = try XCTUnwrap(item.tracks.first { $0.assetTrack?.mediaType == .audio })
        let videoTrack = try XCTUnwrap(item.tracks.first { $0.assetTrack?.mediaType == .video })
        audioTrack.isEnabled = false
        videoTrack.isEnabled = false
        let audioBefore = v.audio.frameCount
        v.clock.advance(by: CMTime(value: 1, timescale: 1))
        waitUntil("time moves on") { item.currentTime().seconds >= 1.99 }
        settle(v.player)
        XCTAssertEqual(v.audio.frameCount, audioBefore, "no audio rendered while the track is disabled")
        // Frames due up to the switch (1 s) may still go up; nothing later is decoded or shown.
        let latest = v.frames.entries.map(\.time.seconds).max() ?? 0
        XCTAssertLessThanOrEqual(latest, 1.0 + 1e-6, "no video presented while disabled")
        XCTAssertEqual(item.tracks.filter(\.isEnabled).count, 0)
        audioTrack.isEnabled = true
        v.clock.advance(by: CMTime(value: 1, timescale: 1))
        waitUntil("audio again") { v.audio.frameCount > audioBefore + 40_000 }
    }

    /// Track changes given back to back while the clock moves on: each change repositions the pipeline silently and
    /// the clock resumes on the anchor of the first, so the time that passed meanwhile is played. (A change that came
    /// while the one before was still landing resumed on the engine's "now" instead, and a manual clock that moved in
    /// between left the item sitting still until it moved again.)
    func test_trackChangesBackToBack_whileTheClockMoves_resumeOnTheFirstsAnchor() throws {
        let (v, item) = try playingItsFirstSecond()
        let audioTrack = try XCTUnwrap(item.tracks.first { $0.assetTrack?.mediaType == .audio })
        for round in 0..<5 {
            let before = v.audio.frameCount
            audioTrack.isEnabled = false
            v.clock.advance(by: CMTime(value: 1, timescale: 2))
            audioTrack.isEnabled = true
            v.clock.advance(by: CMTime(value: 1, timescale: 2))
            // Half a second of sound at least (the half second disabled is silent), however the changes and the
            // clock's moves interleaved with the engine's steps.
            waitUntil("round \(round): audio after the changes") { v.audio.frameCount >= before + 24_000 }
        }
        settle(v.player)
        XCTAssertEqual(item.currentTime().seconds, 6, accuracy: 0.05)
    }
}
