import AVFoundation
import SDLOutput
import TestSupport
import XCTest

/// `AVAudioSession` as a player app configures it, on SDL's `disk` and `dummy` drivers (named through
/// `SDL_AUDIODRIVER`, as the SDLOutput tests do). The session is the process's one shared instance: each test resets
/// its category and deactivates it at the end, so SDL audio is down again between tests.
final class AVAudioSessionTests: XCTestCase {
    /// The file SDL's disk driver writes in this test.
    private var diskFile = ""

    /// The environment as it was before the test, restored after it.
    private var savedEnvironment: [String: String?] = [:]

    override func setUpWithError() throws {
        try super.setUpWithError()
        for name in ["SDL_AUDIODRIVER", "SDL_DISKAUDIOFILE", "SDL_DISKAUDIODELAY"] {
            savedEnvironment[name] = ProcessInfo.processInfo.environment[name]
        }
        diskFile =
            FileManager.default.temporaryDirectory.appendingPathComponent("oavf-session-\(UUID().uuidString).f32").path
        setenv("SDL_AUDIODRIVER", "disk", 1)
        setenv("SDL_DISKAUDIOFILE", diskFile, 1)
        let session = AVAudioSession.sharedInstance()
        try session.setActive(false)
        // A player of an earlier test in this process may still be closing its audio device (its engine stops on
        // its own thread; late on a loaded machine): these tests open the device themselves.
        XCTAssertTrue(Poll.until { SDLAudioSink.currentDriverName == nil }, "an earlier test's device was released")
        try session.setCategory(.soloAmbient, mode: .default, options: [])
        try session.setPreferredSampleRate(0)
        try session.setPreferredIOBufferDuration(0)
    }

    override func tearDownWithError() throws {
        try AVAudioSession.sharedInstance().setActive(false)
        try? FileManager.default.removeItem(atPath: diskFile)
        for (name, value) in savedEnvironment {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
        try super.tearDownWithError()
    }

    /// The category, mode and options are kept, and block KVO reports each change with its old and new value, on
    /// the thread that made it, before the setter returns (app-made changes, as Apple's KVO delivers them).
    func test_setCategory_keptAndObservedWithOldAndNew() throws {
        let session = AVAudioSession.sharedInstance()
        var categories: [(AVAudioSession.Category?, AVAudioSession.Category?)] = []
        var modes: [AVAudioSession.Mode?] = []
        let categoryToken = session.observe(\.category, options: [.old, .new]) { _, change in
            categories.append((change.oldValue, change.newValue))
        }
        let modeToken = session.observe(\.mode, options: [.new]) { _, change in modes.append(change.newValue) }
        defer {
            categoryToken.invalidate()
            modeToken.invalidate()
        }

        try session.setCategory(.playback, mode: .moviePlayback, options: [.mixWithOthers, .duckOthers])
        XCTAssertEqual(session.category, .playback)
        XCTAssertEqual(session.mode, .moviePlayback)
        XCTAssertEqual(session.categoryOptions, [.mixWithOthers, .duckOthers])
        XCTAssertEqual(categories.count, 1)
        XCTAssertEqual(categories.first?.0, .soloAmbient)
        XCTAssertEqual(categories.first?.1, .playback)
        XCTAssertEqual(modes, [.moviePlayback])

        // `setCategory(_:)` keeps the mode; the policy variant sets all four.
        try session.setCategory(.ambient)
        XCTAssertEqual(session.mode, .moviePlayback)
        XCTAssertEqual(session.categoryOptions, [])
        try session.setCategory(.playback, mode: .spokenAudio, policy: .longFormAudio, options: [])
        XCTAssertEqual(session.routeSharingPolicy, .longFormAudio)
        XCTAssertEqual(categories.map(\.1), [.playback, .ambient, .playback])
        XCTAssertEqual(modes, [.moviePlayback, .spokenAudio])
        XCTAssertEqual(session.category.rawValue, "AVAudioSessionCategoryPlayback")
    }

    /// `setActive(true)` on the disk driver opens the device (the driver creates its file), and the session reports
    /// what the device granted for the preferred rate and buffer: 44.1 kHz, 256 frames (the power of two nearest
    /// 5 ms), stereo, and a route naming SDL's device.
    func test_setActive_diskDriver_readiesDeviceAndReportsItsValues() throws {
        let session = AVAudioSession.sharedInstance()
        XCTAssertFalse(FileManager.default.fileExists(atPath: diskFile))
        var rates: [Double?] = []
        let token = session.observe(\.sampleRate, options: [.new]) { _, change in rates.append(change.newValue) }
        defer { token.invalidate() }

        try session.setCategory(.playback, mode: .default, options: [])
        try session.setPreferredSampleRate(44_100)
        try session.setPreferredIOBufferDuration(0.005)
        try session.setActive(true)

        XCTAssertTrue(FileManager.default.fileExists(atPath: diskFile), "the disk driver's device was opened")
        XCTAssertEqual(SDLAudioSink.currentDriverName, "disk", "the session holds SDL's audio driver while active")
        XCTAssertEqual(session.sampleRate, 44_100)
        XCTAssertEqual(rates, [44_100])
        XCTAssertEqual(session.ioBufferDuration, 256.0 / 44_100, accuracy: 1e-12)
        XCTAssertEqual(session.outputLatency, 2 * 256.0 / 44_100, accuracy: 1e-12)
        XCTAssertEqual(session.outputNumberOfChannels, 2)
        XCTAssertEqual(session.outputVolume, 1)
        XCTAssertFalse(session.secondaryAudioShouldBeSilencedHint)

        let outputs = session.currentRoute.outputs
        XCTAssertEqual(outputs.count, 1)
        XCTAssertEqual(outputs.first?.portName, "System audio output device")
        XCTAssertEqual(outputs.first?.portType, .virtual)
        XCTAssertEqual(outputs.first?.uid, "disk:System audio output device")
        XCTAssertEqual(
            outputs.first?.channels?.map(\.channelLabel), [kAudioChannelLabel_Left, kAudioChannelLabel_Right])
        XCTAssertEqual(outputs.first?.channels?.map(\.channelNumber), [1, 2])
        XCTAssertEqual(session.currentRoute.inputs.count, 0, "playback records nothing")

        // While active, a new preference readies the device again at once.
        try session.setPreferredSampleRate(48_000)
        XCTAssertEqual(session.sampleRate, 48_000)
        XCTAssertEqual(rates, [44_100, 48_000])

        try session.setActive(false, options: .notifyOthersOnDeactivation)
        XCTAssertNil(SDLAudioSink.currentDriverName, "deactivation released SDL's audio driver")
        XCTAssertEqual(session.sampleRate, 48_000, "the last device's values stay readable")
    }

    /// No driver that starts: activation throws Apple's error (`NSOSStatusErrorDomain`, `cannotStartPlaying`) saying
    /// why, and leaves SDL down.
    func test_setActive_unknownDriver_throwsCannotStartPlaying() {
        setenv("SDL_AUDIODRIVER", "no-such-driver", 1)
        XCTAssertThrowsError(try AVAudioSession.sharedInstance().setActive(true)) { error in
            let error = error as NSError
            XCTAssertEqual(error.domain, NSOSStatusErrorDomain)
            XCTAssertEqual(error.code, AVAudioSession.ErrorCode.cannotStartPlaying.rawValue)
            XCTAssertEqual(error.code, 561_015_905, "'!pla'")
            XCTAssertTrue(error.localizedDescription.contains("SDL"), error.localizedDescription)
        }
        XCTAssertNil(SDLAudioSink.currentDriverName)
    }

    /// Out-of-range preferences throw `badParam` (-50) and are not kept.
    func test_setPreferred_negative_throwsBadParam() throws {
        let session = AVAudioSession.sharedInstance()
        XCTAssertThrowsError(try session.setPreferredSampleRate(-1)) { error in
            XCTAssertEqual((error as NSError).code, AVAudioSession.ErrorCode.badParam.rawValue)
        }
        XCTAssertThrowsError(try session.setPreferredIOBufferDuration(.nan)) { error in
            XCTAssertEqual((error as NSError).code, -50)
        }
        XCTAssertEqual(session.preferredSampleRate, 0)
        XCTAssertEqual(session.preferredIOBufferDuration, 0)
    }

    /// A device SDL reports as added (`SDL_AUDIODEVICEADDED`, pushed on SDL's event queue as SDL's drivers push it:
    /// `dummy` never sees hardware come) posts `routeChangeNotification` with `.newDeviceAvailable` and the previous
    /// route, read as an app reads it.
    func test_deviceAdded_postsRouteChangeNewDeviceAvailable() throws {
        setenv("SDL_AUDIODRIVER", "dummy", 1)
        let session = AVAudioSession.sharedInstance()
        let log = NotificationLog(AVAudioSession.routeChangeNotification, object: session)
        try session.setCategory(.playback, mode: .default, options: [])
        try session.setActive(true)
        XCTAssertEqual(session.currentRoute.outputs.first?.uid, "dummy:System audio output device")

        XCTAssertTrue(SDLAudioDeviceWatch.pushEvent(.added(index: 0, isCapture: false)))
        waitUntil("a route change") { log.count == 1 }

        let userInfo = log.notifications.first?.userInfo
        guard let value = userInfo?[AVAudioSessionRouteChangeReasonKey] as? UInt,
            let reason = AVAudioSession.RouteChangeReason(rawValue: value)
        else { return XCTFail("no reason in \(String(describing: userInfo))") }
        XCTAssertEqual(reason, .newDeviceAvailable)
        let previous = userInfo?[AVAudioSessionRouteChangePreviousRouteKey] as? AVAudioSessionRouteDescription
        XCTAssertEqual(previous?.outputs.first?.portName, "System audio output device")
        XCTAssertEqual(session.currentRoute.outputs.first?.portName, "System audio output device")
    }

    /// The device a player plays on is lost: SDL's disk driver writing to `/dev/full` fails its first write and
    /// reports the open device removed (`SDL_AUDIODEVICEREMOVED`), which the active session posts as
    /// `.oldDeviceUnavailable`.
    func test_playingDeviceLost_postsRouteChangeOldDeviceUnavailable() throws {
        setenv("SDL_DISKAUDIOFILE", "/dev/full", 1)
        let session = AVAudioSession.sharedInstance()
        let log = NotificationLog(AVAudioSession.routeChangeNotification, object: session)
        try session.setCategory(.playback, mode: .moviePlayback, options: [])
        try session.setActive(true)

        let player = AVPlayer(playerItem: AVPlayerItem(url: try fixture(.audioWAV)))
        player.play()
        waitUntil("a route change", timeout: 30) { log.count >= 1 }
        player.pause()
        player.replaceCurrentItem(with: nil)

        let reasons = log.notifications.compactMap { $0.userInfo?[AVAudioSessionRouteChangeReasonKey] as? UInt }
        XCTAssertEqual(reasons.first, AVAudioSession.RouteChangeReason.oldDeviceUnavailable.rawValue)
    }

    /// Activated while a player plays (SDL's disk driver opens one device at a time), the session reports the device
    /// the player's output holds open, as SDL granted it for the media: 48 kHz stereo, 1024-frame buffers.
    func test_setActive_whilePlayerPlays_reportsThePlayersDevice() throws {
        let session = AVAudioSession.sharedInstance()
        try session.setCategory(.playback, mode: .moviePlayback, options: [])
        try session.setPreferredSampleRate(22_050)
        let player = AVPlayer(playerItem: AVPlayerItem(url: try fixture(.audioWAV)))
        player.play()
        waitUntil("playing") { player.timeControlStatus == .playing }
        waitUntil("the device writing") {
            ((try? FileManager.default.attributesOfItem(atPath: diskFile)[.size]) as? Int ?? 0) > 0
        }

        try session.setActive(true)
        player.pause()
        player.replaceCurrentItem(with: nil)
        XCTAssertEqual(session.sampleRate, 48_000, "the player's device, not the preferred 22.05 kHz")
        XCTAssertEqual(session.ioBufferDuration, 1_024.0 / 48_000, accuracy: 1e-12)
        XCTAssertEqual(session.outputNumberOfChannels, 2)
        XCTAssertEqual(session.currentRoute.outputs.first?.uid, "disk:System audio output device")
    }

    /// Changing the category while active posts `.categoryChange`; a record category puts SDL's capture device, if
    /// the driver lists one, in the inputs (`disk` lists none).
    func test_categoryChangeWhileActive_postsCategoryChange() throws {
        let session = AVAudioSession.sharedInstance()
        let log = NotificationLog(AVAudioSession.routeChangeNotification, object: session)
        try session.setActive(true)
        try session.setCategory(.playback)
        waitUntil("a route change") { log.count == 1 }
        let reason = log.notifications.first?.userInfo?[AVAudioSessionRouteChangeReasonKey] as? UInt
        XCTAssertEqual(reason, AVAudioSession.RouteChangeReason.categoryChange.rawValue)

        // The same category again is no change.
        try session.setCategory(.playback)
        try session.setActive(false)
        try session.setCategory(.playAndRecord)
        spinMainRunLoop()
        XCTAssertEqual(log.count, 1, "no route change for an unchanged category or an inactive session")
    }
}
