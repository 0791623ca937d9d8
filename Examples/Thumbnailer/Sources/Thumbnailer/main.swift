// A thumbnailer on AVPlayerItemVideoOutput: writes COUNT pictures of a video, evenly spaced, as PNG files.
//
//     swift run Thumbnailer movie.mp4 OUTPUT-FOLDER [COUNT] [WIDTH]
//
// The player runs on a manual virtual clock (an OpenAVFoundation extension), so nothing plays in real time: each
// picture is an exact seek on the paused player, then `copyPixelBuffer(forItemTime:itemTimeForDisplay:)`.
import AVFoundation

struct Failure: Error, CustomStringConvertible {
    var description: String
}

@MainActor
func writeThumbnails(of url: URL, count: Int, width: Int, into folder: URL) async throws {
    // BGRA pictures `width` pixels wide; the height follows the aspect ratio.
    let output = AVPlayerItemVideoOutput(pixelBufferAttributes: [
        kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA,
        kCVPixelBufferWidthKey as String: width,
    ])
    let item = AVPlayerItem(url: url)
    item.add(output)
    let player = AVPlayer()
    player.sourceClock = VirtualClock(mode: .manual)  // set before the player gets its item
    player.replaceCurrentItem(with: item)

    try await waitUntil("the item is ready") {
        if item.status == .failed { throw item.error ?? Failure(description: "\(url.lastPathComponent) failed") }
        return item.status == .readyToPlay
    }
    let duration = item.duration
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for i in 0..<count {
        let target = CMTimeMultiplyByRatio(duration, multiplier: Int32(i), divisor: Int32(count))
        guard await player.seek(to: target, toleranceBefore: .zero, toleranceAfter: .zero) else {
            throw Failure(description: "the seek to \(target.seconds) s did not finish")
        }
        // The paused player shows the picture at the target; the output has it once it is there.
        var picture: (buffer: CVPixelBuffer, time: CMTime)?
        try await waitUntil("the picture at \(target.seconds) s") {
            let now = item.currentTime()
            guard output.hasNewPixelBuffer(forItemTime: now) else { return false }
            var shown = CMTime.invalid
            guard let buffer = output.copyPixelBuffer(forItemTime: now, itemTimeForDisplay: &shown) else {
                return false
            }
            picture = (buffer, shown)
            return true
        }
        guard let picture else { continue }
        let file = folder.appendingPathComponent(String(format: "thumbnail-%03d.png", i))
        try OAVFWritePNG(picture.buffer, to: file)  // an OpenAVFoundation extension (FFmpeg's PNG encoder)
        print(
            String(
                format: "%@  %.3f s  %dx%d", file.path, picture.time.seconds,
                CVPixelBufferGetWidth(picture.buffer), CVPixelBufferGetHeight(picture.buffer)))
    }
}

/// Calls `done` every 2 ms, letting the main queue deliver the player's changes, until it returns true (for at
/// most 30 s).
@MainActor
func waitUntil(_ what: String, _ done: () throws -> Bool) async throws {
    for _ in 0..<15_000 {
        if try done() { return }
        try await Task.sleep(nanoseconds: 2_000_000)
    }
    throw Failure(description: "timed out waiting for \(what)")
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: Thumbnailer FILE|URL OUTPUT-FOLDER [COUNT] [WIDTH]\n".utf8))
    exit(2)
}
let input = arguments[0]
let url = input.contains("://") ? URL(string: input)! : URL(fileURLWithPath: input)
let count = arguments.count > 2 ? max(1, Int(arguments[2]) ?? 8) : 8
let width = arguments.count > 3 ? max(16, Int(arguments[3]) ?? 320) : 320
do {
    try await writeThumbnails(
        of: url, count: count, width: width, into: URL(fileURLWithPath: arguments[1], isDirectory: true))
} catch {
    FileHandle.standardError.write(Data("Thumbnailer: \(error)\n".utf8))
    exit(1)
}
