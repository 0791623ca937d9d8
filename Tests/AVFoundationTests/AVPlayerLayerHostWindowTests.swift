import CSDL2
import Foundation
import OAVFLocking
import PlaybackEngine
import SDLOutput
import TestSupport
import XCTest

@testable import AVFoundation

/// `AVPlayerLayer` placed in an app's own X11 window (``AVPlayerLayer/oavfAttach(toHostWindow:)``), read back from the
/// X server with `XGetImage` of the app's window, as its user sees it: the frame index drawn where the video rectangle
/// is, and the app's own drawing (a background and a bar, ``X11TestApp``) untouched everywhere else. On a private
/// Xvfb display (``XvfbDisplay``); skipped when Xvfb is not installed.
///
/// The player runs on a manual virtual clock; `h264_aac.mp4` is 320x240 at 30 fps, frame k at k/30 s drawing index k.
final class AVPlayerLayerHostWindowTests: XCTestCase {
    private let xvfb = XvfbDisplay()

    override func setUpWithError() throws {
        try xvfb.start()
    }

    override func tearDown() {
        xvfb.stop()
    }

    func test_hostWindow_showsTheRightFrameInTheVideoRect_afterSeekPauseResizeAndGravity_andKeepsTheAppsDrawing()
        throws
    {
        let app = try X11TestApp(width: 480, height: 360)
        let v = VirtualPlayer(mode: .manual)
        let layer = AVPlayerLayer(player: v.player)
        defer { layer.player = nil }
        layer.frame = CGRect(x: 40, y: 30, width: 320, height: 240)
        try layer.oavfAttach(toHostWindow: app.window)
        XCTAssertEqual(layer.oavfHostWindowID, app.window)
        v.player.replaceCurrentItem(with: AVPlayerItem(url: try fixture(.h264AAC)))
        waitUntil("first picture") { layer.isReadyForDisplay }

        // A seek: the frame at 1 s (index 30) in the frame's rectangle, nothing else of the window changed.
        seek(v.player, to: 1.0)
        let rect = (x: 40, y: 30, width: 320, height: 240)
        let seeked = try XCTUnwrap(app.screenshot { $0.frameIndex(in: rect) == 30 }, "frame 30 at (40, 30)")
        XCTAssertEqual(seeked.foreignPixels(outside: rect), 0, "the app's drawing intact around the video")
        XCTAssertTrue(seeked.videoBounds().map { $0 == rect } ?? false, "\(String(describing: seeked.videoBounds()))")

        // Playing, then paused: the picture presented last stays on screen.
        v.player.play()
        waitUntil("playing") { v.player.timeControlStatus == .playing }
        // Half a frame in, then a frame at a time (no step lands on a frame's boundary).
        v.clock.advance(by: CMTime(value: 1, timescale: 60))
        for k in 31...40 {
            v.clock.advance(by: CMTime(value: 1, timescale: 30))
            waitUntil("frame \(k)") { (v.frames.entries.last?.index ?? 0) >= k }
        }
        v.player.pause()
        XCTAssertEqual(v.frames.entries.last?.index, 40)
        let paused = try XCTUnwrap(app.screenshot { $0.frameIndex(in: rect) == 40 }, "frame 40 once paused")
        XCTAssertEqual(paused.foreignPixels(outside: rect), 0)

        // A resize to a wide frame: pillarboxed, the child covers only the video rectangle (266.7x200 centred in
        // 400x200 at (20, 60)); the bars beside it are the app's background, not black.
        layer.frame = CGRect(x: 20, y: 60, width: 400, height: 200)
        XCTAssertEqual(layer.videoRect, CGRect(x: 400.0 / 2 - 400.0 / 3, y: 0, width: 800.0 / 3, height: 200))
        let fitted = (x: 87, y: 60, width: 266, height: 200)
        let resized = try XCTUnwrap(
            app.screenshot { s in s.videoBounds().map { $0 == fitted } ?? false && s.frameIndex(in: fitted) == 40 },
            "frame 40 in (87, 60, 266, 200): \(describe(app.screenshot(), fitted))")
        XCTAssertEqual(resized.foreignPixels(outside: fitted), 0, "the old rectangle is the app's again")

        // Gravity .resize: the picture stretched over the whole frame.
        layer.videoGravity = .resize
        let frame = (x: 20, y: 60, width: 400, height: 200)
        let stretched = try XCTUnwrap(
            app.screenshot { s in s.videoBounds().map { $0 == frame } ?? false && s.frameIndex(in: frame) == 40 },
            "frame 40 stretched over (20, 60, 400, 200)")
        XCTAssertEqual(stretched.foreignPixels(outside: frame), 0)

        // Aspect fill: the frame covered (the picture cropped top and bottom), nothing outside it.
        layer.videoGravity = .resizeAspectFill
        let filled = try XCTUnwrap(
            app.screenshot { s in
                s.videoBounds().map { $0 == frame } ?? false && differences(s, stretched, in: frame) > 10_000
            }, "the cropped picture over (20, 60, 400, 200)")
        XCTAssertEqual(filled.foreignPixels(outside: frame), 0)

        // Hidden: the app's window as the app drew it; shown again: the picture back.
        layer.isHidden = true
        XCTAssertNotNil(app.screenshot { $0.videoBounds() == nil }, "nothing of the video while hidden")
        layer.videoGravity = .resize
        layer.isHidden = false
        XCTAssertNotNil(app.screenshot { $0.frameIndex(in: frame) == 40 }, "the picture back when shown")
    }

    /// The app destroys its window while the video plays: playback goes on, frame after frame on the manual clock
    /// (the engine never waits on the window), and the layer shows the playing position in the app's next window.
    /// Then detached while playing: the frames go on, and nothing more is drawn in the app's window.
    func test_hostWindow_destroyedOrDetachedWhilePlaying_playbackGoesOnAtItsPosition() throws {
        let v = VirtualPlayer(mode: .manual)
        let layer = AVPlayerLayer(player: v.player)
        defer { layer.player = nil }
        layer.frame = CGRect(x: 0, y: 20, width: 320, height: 240)
        let rect = (x: 0, y: 20, width: 320, height: 240)
        var first: X11TestApp? = try X11TestApp(width: 320, height: 260)
        try layer.oavfAttach(toHostWindow: try XCTUnwrap(first).window)
        v.player.replaceCurrentItem(with: AVPlayerItem(url: try fixture(.h264AAC)))
        waitUntil("first picture") { layer.isReadyForDisplay }
        v.player.play()
        waitUntil("playing") { v.player.timeControlStatus == .playing }
        func play(through frames: ClosedRange<Int>) {
            for k in frames {
                let target = CMTime(value: Int64(k) * 1_000_000 + 500, timescale: 30_000_000)
                v.clock.advance(by: target - v.clock.time)
                waitUntil("frame \(k)") { v.frames.entries.last?.time == CMTime(value: Int64(k), timescale: 30) }
            }
        }
        play(through: 1...10)
        XCTAssertNotNil(first?.screenshot { $0.frameIndex(in: rect) == 10 }, "frame 10 in the first window")

        first?.destroy()
        first = nil
        play(through: 11...20)
        XCTAssertEqual(v.frames.entries.last?.index, 20, "playback went on")
        XCTAssertEqual(v.player.currentTime().seconds, 20.0 / 30, accuracy: 0.5 / 30)

        let second = try X11TestApp(width: 320, height: 260)
        try layer.oavfAttach(toHostWindow: second.window)
        play(through: 21...25)
        XCTAssertNotNil(second.screenshot { $0.frameIndex(in: rect) == 25 }, "frame 25 in the second window")

        layer.isHidden = true  // no window of its own popping up once detached
        layer.oavfDetachFromHostWindow()
        XCTAssertNil(layer.oavfHostWindowID)
        XCTAssertNotNil(second.screenshot { $0.videoBounds() == nil }, "the second window is the app's again")
        play(through: 26...35)
        XCTAssertEqual(v.frames.entries.last?.index, 35, "playback went on after the detach")
        XCTAssertEqual(v.player.currentTime().seconds, 35.0 / 30, accuracy: 0.5 / 30)
        XCTAssertNil(second.screenshot()?.videoBounds(), "nothing drawn in the app's window after the detach")
    }

    /// An SDL app in this process: its window, its UI drawn with SDL's renderer (the bar and background of
    /// ``X11TestApp``) and redrawn while the video shows, and its own events, which the layer's window thread leaves
    /// in SDL's queue for the app.
    func test_sdlHostWindow_showsTheFrame_keepsTheAppsDrawingAndEvents() throws {
        XCTAssertEqual(SDL_InitSubSystem(SDL_INIT_VIDEO), 0, String(cString: SDL_GetError()))
        defer { SDL_QuitSubSystem(SDL_INIT_VIDEO) }
        let window = try XCTUnwrap(SDL_CreateWindow("app", 0, 0, 320, 260, SDL_WINDOW_SHOWN.rawValue))
        defer { SDL_DestroyWindow(window) }
        let renderer = try XCTUnwrap(SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE.rawValue))
        defer { SDL_DestroyRenderer(renderer) }
        func drawUI() {
            let (bg, bar) = (X11TestApp.background, X11TestApp.bar)
            SDL_SetRenderDrawColor(renderer, UInt8(bg >> 16), UInt8((bg >> 8) & 0xFF), UInt8(bg & 0xFF), 255)
            SDL_RenderClear(renderer)
            SDL_SetRenderDrawColor(renderer, UInt8(bar >> 16), UInt8((bar >> 8) & 0xFF), UInt8(bar & 0xFF), 255)
            var top = SDL_Rect(x: 0, y: 0, w: 320, h: Int32(X11TestApp.barHeight))
            SDL_RenderFillRect(renderer, &top)
            SDL_RenderPresent(renderer)
        }
        drawUI()
        let id = try XCTUnwrap(SDLVideoWindow.x11WindowID(ofSDLWindow: window), "an X11 window")
        let app = try X11TestApp(existing: id, width: 320, height: 260)

        let v = VirtualPlayer(mode: .manual)
        let layer = AVPlayerLayer(player: v.player)
        defer { layer.player = nil }
        layer.frame = CGRect(x: 0, y: 20, width: 320, height: 240)
        try layer.oavfAttach(toSDLWindow: window)
        XCTAssertEqual(layer.oavfHostWindowID, id)
        v.player.replaceCurrentItem(with: AVPlayerItem(url: try fixture(.h264AAC)))
        waitUntil("first picture") { layer.isReadyForDisplay }
        seek(v.player, to: 1.0)
        let rect = (x: 0, y: 20, width: 320, height: 240)
        XCTAssertNotNil(app.screenshot { $0.frameIndex(in: rect) == 30 }, "frame 30 in the SDL window")

        // The app redraws its whole window: the video stays on top of it, the rest is the app's.
        drawUI()
        let redrawn = try XCTUnwrap(app.screenshot { $0.frameIndex(in: rect) == 30 }, "frame 30 after a redraw")
        XCTAssertEqual(redrawn.foreignPixels(outside: rect), 0, "\(describe(redrawn, rect))")

        // An event of the app's stays in SDL's queue while the layer draws (its window thread takes none).
        let type = SDL_RegisterEvents(1)
        var pushed = SDL_Event()
        pushed.user.type = type
        pushed.user.code = 42
        XCTAssertEqual(SDL_PushEvent(&pushed), 1)
        seek(v.player, to: 0.5)
        XCTAssertNotNil(app.screenshot { $0.frameIndex(in: rect) == 15 }, "frame 15 drawn meanwhile")
        var event = SDL_Event()
        var found = false
        while SDL_PollEvent(&event) != 0 {
            if event.type == type && event.user.code == 42 { found = true }
        }
        XCTAssertTrue(found, "the app's event reached the app")
    }

    /// An SDL app in this process with the video of one player in its window, and a second player's layer in a
    /// window of its own: SDL's one event queue is shared, and the layers' window thread takes only the events of its
    /// own window from it (a key there reaches the layer's handler); the app's events stay in the queue for the app.
    func test_sdlHostWindow_besideAWindowOfItsOwn_theAppKeepsItsEvents_theOwnWindowGetsItsKeys() throws {
        XCTAssertEqual(SDL_InitSubSystem(SDL_INIT_VIDEO), 0, String(cString: SDL_GetError()))
        defer { SDL_QuitSubSystem(SDL_INIT_VIDEO) }
        let window = try XCTUnwrap(SDL_CreateWindow("app", 0, 0, 320, 260, SDL_WINDOW_SHOWN.rawValue))
        defer { SDL_DestroyWindow(window) }
        let appWindowID = SDL_GetWindowID(window)
        let app = try X11TestApp(
            existing: try XCTUnwrap(SDLVideoWindow.x11WindowID(ofSDLWindow: window)), width: 320, height: 260)

        let embedded = VirtualPlayer(mode: .manual)
        let embeddedLayer = AVPlayerLayer(player: embedded.player)
        defer { embeddedLayer.player = nil }
        embeddedLayer.frame = CGRect(x: 0, y: 20, width: 320, height: 240)
        try embeddedLayer.oavfAttach(toSDLWindow: window)
        embedded.player.replaceCurrentItem(with: AVPlayerItem(url: try fixture(.h264AAC)))

        let own = VirtualPlayer(mode: .manual)
        let ownLayer = AVPlayerLayer(player: own.player)
        defer { ownLayer.player = nil }
        let keys = Locked<[AVPlayerLayerWindowEvent]>([])
        ownLayer.windowEventHandler = { event in keys.withLock { $0.append(event) } }
        own.player.replaceCurrentItem(with: AVPlayerItem(url: try fixture(.h264AAC)))
        waitUntil("both pictures") { embeddedLayer.isReadyForDisplay && ownLayer.isReadyForDisplay }
        waitUntil("the layer's own window open") { ownLayer.window.sdlWindowID != nil }
        let ownWindowID = try XCTUnwrap(ownLayer.window.sdlWindowID)
        XCTAssertNotEqual(ownWindowID, appWindowID)
        // The embedded picture drawn: the window thread serves the app's window now.
        seek(embedded.player, to: 1.0)
        let rect = (x: 0, y: 20, width: 320, height: 240)
        XCTAssertNotNil(app.screenshot { $0.frameIndex(in: rect) == 30 }, "frame 30 in the SDL app's window")

        // The app's own event type, a key in the app's window, then a key in the layer's window.
        let type = SDL_RegisterEvents(1)
        var user = SDL_Event()
        user.user.type = type
        user.user.code = 42
        XCTAssertEqual(SDL_PushEvent(&user), 1)
        func keyDown(_ key: SDL_KeyCode, in windowID: UInt32) -> SDL_Event {
            var event = SDL_Event()
            event.key.type = SDL_KEYDOWN.rawValue
            event.key.windowID = windowID
            event.key.state = UInt8(SDL_PRESSED)
            event.key.keysym.sym = Int32(bitPattern: key.rawValue)
            return event
        }
        var appKey = keyDown(SDLK_RIGHT, in: appWindowID)
        XCTAssertEqual(SDL_PushEvent(&appKey), 1)
        var ownKey = keyDown(SDLK_LEFT, in: ownWindowID)
        XCTAssertEqual(SDL_PushEvent(&ownKey), 1)
        waitUntil("the key in the layer's window reported") { keys.withLock { $0.contains(.keyDown(.left)) } }

        var event = SDL_Event()
        var (appEvent, appKeySeen, ownKeySeen) = (false, false, false)
        while SDL_PollEvent(&event) != 0 {
            if event.type == type && event.user.code == 42 { appEvent = true }
            if event.type == SDL_KEYDOWN.rawValue {
                if event.key.windowID == appWindowID && event.key.keysym.sym == Int32(bitPattern: SDLK_RIGHT.rawValue) {
                    appKeySeen = true
                }
                if event.key.windowID == ownWindowID { ownKeySeen = true }
            }
        }
        XCTAssertTrue(appEvent, "the app's event reached the app")
        XCTAssertTrue(appKeySeen, "the key in the app's window reached the app")
        XCTAssertFalse(ownKeySeen, "the key in the layer's window was the layer's")
        XCTAssertFalse(keys.withLock { $0.contains(.keyDown(.right)) }, "the app's key is not the layer's")
    }

    func test_attach_toAWindowThatDoesNotExist_throwsOperationNotAllowed() throws {
        let layer = AVPlayerLayer()
        XCTAssertThrowsError(try layer.oavfAttach(toHostWindow: 0x7fff_fff0)) { error in
            let e = error as NSError
            XCTAssertEqual(e.domain, AVFoundationErrorDomain)
            XCTAssertEqual(e.code, AVError.Code.operationNotAllowed.rawValue)
            XCTAssertTrue(e.localizedFailureReason?.contains("no X11 window") ?? false, "\(e)")
        }
        XCTAssertNil(layer.oavfHostWindowID)
    }

    /// What a screenshot shows, for a failure message: where the video is and the index read in `rect`.
    private func describe(_ s: X11TestApp.Screenshot?, _ rect: (x: Int, y: Int, width: Int, height: Int)) -> String {
        guard let s else { return "no screenshot" }
        let bounds = s.videoBounds().map { "\($0)" } ?? "none"
        return "video at \(bounds), index \(s.frameIndex(in: rect).map(String.init) ?? "unreadable")"
    }

    /// The pixels of `rect` that differ between two screenshots.
    private func differences(
        _ a: X11TestApp.Screenshot, _ b: X11TestApp.Screenshot, in rect: (x: Int, y: Int, width: Int, height: Int)
    ) -> Int {
        var count = 0
        for y in rect.y..<rect.y + rect.height {
            for x in rect.x..<rect.x + rect.width where a.colour(x, y) != b.colour(x, y) { count += 1 }
        }
        return count
    }

    private func seek(_ player: AVPlayer, to seconds: Double) {
        let done = Locked<Bool?>(nil)
        player.seek(
            to: CMTime(seconds: seconds, preferredTimescale: 600), toleranceBefore: .zero, toleranceAfter: .zero
        ) { ok in done.withLock { $0 = ok } }
        waitUntil("seek \(seconds)") { done.withLock { $0 } != nil }
    }
}
