import Foundation
import SDLOutput
import TestSupport
import XCTest

/// A private Xvfb display for a test: started in `start()` (skipping the test when `Xvfb` is not installed), set as
/// this process's `DISPLAY` while the test runs, stopped in `stop()` once the window thread has let go of it (Xlib
/// ends the process when its server disappears). The display number is the first free one from `first + pid % 50`
/// (test classes pick different `first`s, so that a parallel run does not take the same).
final class XvfbDisplay {
    private let first: Int
    private var server: Process?
    private var previousDisplay: String?

    init(first: Int = 150) {
        self.first = first
    }

    func start(size: String = "800x600x24") throws {
        let xvfb = ["/usr/bin/Xvfb", "/usr/local/bin/Xvfb"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let xvfb else { throw XCTSkip("Xvfb is not installed") }
        var number = first + Int(getpid() % 50)
        while FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)")
            || FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock")
        {
            number += 1
        }
        let socket = "/tmp/.X11-unix/X\(number)"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: xvfb)
        process.arguments = [":\(number)", "-screen", "0", size, "-nolisten", "tcp"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        server = process
        // The socket offers no event: looked for every 20 ms, at most the hang guard (a loaded machine starts late).
        let started = Poll.until(every: 0.02) { !process.isRunning || FileManager.default.fileExists(atPath: socket) }
        guard started, process.isRunning else { throw XCTSkip("Xvfb did not start") }
        previousDisplay = ProcessInfo.processInfo.environment["DISPLAY"]
        setenv("DISPLAY", ":\(number)", 1)
    }

    func stop() {
        // The main run loop turns meanwhile, as an app's does (once a window thread did not stop within the hang
        // guard beside a second `make test`, and the X server taken away under it aborted the process).
        let released = Poll.runLoop { !SDLVideoWindow.isWindowThreadRunning }
        XCTAssertTrue(released, "the window thread let go of the display")
        if let previousDisplay { setenv("DISPLAY", previousDisplay, 1) } else { unsetenv("DISPLAY") }
        // A window thread still on the display keeps its server: taken away, Xlib's I/O error handler ends the whole
        // process from that thread (`exit` beside running threads: an abort, or a process that never ends).
        guard released else {
            server = nil
            return
        }
        if let server, server.isRunning {
            server.terminate()
            server.waitUntilExit()
        }
        server = nil
    }
}

/// An app that owns an X11 window and draws its own UI in it with plain Xlib, on its own display connection: a
/// background colour and a bar along the top. Reads its window back with `XGetImage` (what the X server shows in
/// it, the layer's child window included). Used from the test's thread only.
final class X11TestApp {
    /// The window's background, painted by the server wherever nothing else is (0xRRGGBB).
    static let background: UInt = 0x3366_99
    /// The bar the app draws along the top, rows 0..<`barHeight`.
    static let bar: UInt = 0xFF_8000
    static let barHeight = 16

    let x11: X11Library
    let display: OpaquePointer
    let window: UInt
    let width: Int
    let height: Int
    private var destroyed = false

    init(width: Int, height: Int) throws {
        x11 = try XCTUnwrap(X11Library.shared, "libX11")
        display = try XCTUnwrap(x11.openDisplay(nil), "an X11 connection")
        (self.width, self.height) = (width, height)
        window = x11.createSimpleWindow(
            display, x11.defaultRootWindow(display), 0, 0, UInt32(width), UInt32(height), 0, 0, Self.background)
        _ = x11.mapWindow(display, window)
        _ = x11.sync(display, 0)
        drawBar()
    }

    /// Reads back a window someone else made (an SDL app's); never destroys it.
    init(existing window: UInt, width: Int, height: Int) throws {
        x11 = try XCTUnwrap(X11Library.shared, "libX11")
        display = try XCTUnwrap(x11.openDisplay(nil), "an X11 connection")
        (self.window, self.width, self.height) = (window, width, height)
        destroyed = true
    }

    deinit {
        destroy()
        _ = x11.closeDisplay(display)
    }

    /// Draws the bar (again: after the layer's child window moved away from under it, the server repaints the
    /// background only).
    func drawBar() {
        guard let gc = x11.createGC(display, window, 0, nil) else { return }
        _ = x11.setForeground(display, gc, Self.bar)
        _ = x11.fillRectangle(display, window, gc, 0, 0, UInt32(width), UInt32(Self.barHeight))
        _ = x11.freeGC(display, gc)
        _ = x11.sync(display, 0)
    }

    /// Destroys the window (as an app closing it does); the layer's child window goes with it.
    func destroy() {
        guard !destroyed else { return }
        destroyed = true
        _ = x11.destroyWindow(display, window)
        _ = x11.sync(display, 0)
    }

    /// The window's pixels as the screen shows them, BGRX rows of `width * 4` bytes (Xvfb's 24-bit depth).
    func screenshot() -> Screenshot? {
        guard let image = x11.getImage(display, window, 0, 0, UInt32(width), UInt32(height), ~0, 2) else {
            return nil
        }
        // XImage: int width, height, xoffset, format; char *data; ... int bytes_per_line (44), bits_per_pixel (48).
        let data = image.load(fromByteOffset: 16, as: UnsafeMutableRawPointer?.self)
        let bytesPerRow = Int(image.load(fromByteOffset: 44, as: Int32.self))
        let bitsPerPixel = image.load(fromByteOffset: 48, as: Int32.self)
        defer {
            _ = x11.free(data)
            _ = x11.free(image)
        }
        guard let data, bitsPerPixel == 32 else { return nil }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            pixels.withUnsafeMutableBytes {
                $0.baseAddress!.advanced(by: y * width * 4).copyMemory(
                    from: data.advanced(by: y * bytesPerRow), byteCount: width * 4)
            }
        }
        return Screenshot(pixels: pixels, width: width, height: height)
    }

    struct Screenshot {
        var pixels: [UInt8]
        var width: Int
        var height: Int

        /// The pixel at (x, y) as 0xRRGGBB.
        func colour(_ x: Int, _ y: Int) -> UInt {
            let o = (y * width + x) * 4
            return UInt(pixels[o + 2]) << 16 | UInt(pixels[o + 1]) << 8 | UInt(pixels[o])
        }

        /// The frame index drawn in the rectangle (the picture filling it).
        func frameIndex(in rect: (x: Int, y: Int, width: Int, height: Int)) -> Int? {
            let origin = (rect.y * width + rect.x) * 4
            return pixels.withUnsafeBytes { (all: UnsafeRawBufferPointer) in
                FrameIndexReader.read(
                    pixels: UnsafeRawBufferPointer(rebasing: all[origin...]), layout: .bgra, width: rect.width,
                    height: rect.height, bytesPerRow: width * 4)?
                    .index
            }
        }

        /// The pixels outside `rect` that are not the app's own drawing (the bar on top, the background below it).
        func foreignPixels(outside rect: (x: Int, y: Int, width: Int, height: Int)) -> Int {
            var count = 0
            for y in 0..<height {
                for x in 0..<width {
                    if x >= rect.x && x < rect.x + rect.width && y >= rect.y && y < rect.y + rect.height { continue }
                    let expected = y < X11TestApp.barHeight ? X11TestApp.bar : X11TestApp.background
                    if colour(x, y) != expected { count += 1 }
                }
            }
            return count
        }

        /// The bounding box of the pixels that are neither the bar nor the background (where the video is).
        func videoBounds() -> (x: Int, y: Int, width: Int, height: Int)? {
            var (x0, y0, x1, y1) = (Int.max, Int.max, -1, -1)
            for y in X11TestApp.barHeight..<height {
                for x in 0..<width where colour(x, y) != X11TestApp.background {
                    (x0, y0, x1, y1) = (min(x0, x), min(y0, y), max(x1, x), max(y1, y))
                }
            }
            return x1 < 0 ? nil : (x0, y0, x1 - x0 + 1, y1 - y0 + 1)
        }
    }

    /// The next screenshot that satisfies `condition`, grabbed every 20 ms (a screen offers no event); `nil` after
    /// the hang guard (a loaded machine draws late, not never).
    func screenshot(until condition: (Screenshot) -> Bool) -> Screenshot? {
        var found: Screenshot?
        Poll.until(every: 0.02) {
            found = screenshot().flatMap { condition($0) ? $0 : nil }
            return found != nil
        }
        return found
    }
}
