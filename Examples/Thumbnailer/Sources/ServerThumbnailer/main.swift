// A server-style thumbnailer: for each video, a poster JPEG and a scrubbing strip (one picture every N seconds),
// written with AVAssetImageGenerator and ImageIO's CGImageDestination exactly as an iOS or macOS app writes them —
// this file compiles unchanged against Apple's frameworks.
//
//     swift run ServerThumbnailer OUTPUT-FOLDER [--every SECONDS] [--width PIXELS] FILE|URL...
//
// One generator per file: the strip's times are asked for together, so the file is read once, and with the default
// tolerances each picture is the keyframe at or before its time (nothing after it is decoded). The poster is exact.
import AVFoundation
import ImageIO
import UniformTypeIdentifiers

struct Failure: Error, CustomStringConvertible {
    var description: String
}

/// Writes `image` to `url` as JPEG (`quality` 0…1) or PNG, through ImageIO.
func write(_ image: CGImage, to url: URL, jpegQuality quality: Double?) throws {
    let type: UTType = quality == nil ? .png : .jpeg
    guard let destination = CGImageDestinationCreateWithURL(url as CFURL, type.identifier as CFString, 1, nil) else {
        throw Failure(description: "can't write \(url.path)")
    }
    let properties = quality.map { [kCGImageDestinationLossyCompressionQuality: $0] as CFDictionary }
    CGImageDestinationAddImage(destination, image, properties)
    guard CGImageDestinationFinalize(destination) else { throw Failure(description: "can't encode \(url.path)") }
}

/// The poster and the strip of one video; returns how many images were written.
func thumbnail(_ url: URL, into folder: URL, every step: Double, width: Int) async throws -> Int {
    let asset = AVURLAsset(url: url)
    let (duration, tracks) = try await asset.load(.duration, .tracks)
    guard tracks.contains(where: { $0.mediaType == .video }) else {
        throw Failure(description: "\(url.lastPathComponent) has no video")
    }
    let name = url.deletingPathExtension().lastPathComponent
    let generator = AVAssetImageGenerator(asset: asset)
    generator.appliesPreferredTrackTransform = true  // phones record portrait video turned
    generator.maximumSize = CGSize(width: width, height: 0)

    // The poster: the exact picture at 10 % of the video.
    let exact = AVAssetImageGenerator(asset: asset)
    exact.appliesPreferredTrackTransform = true
    exact.requestedTimeToleranceBefore = .zero
    exact.requestedTimeToleranceAfter = .zero
    let posterTime = CMTimeMultiplyByFloat64(duration, multiplier: 0.1)
    let (poster, posterActual) = try await exact.image(at: posterTime)
    let posterURL = folder.appendingPathComponent("\(name)-poster.jpg")
    try write(poster, to: posterURL, jpegQuality: 0.85)
    print(
        String(
            format: "%@  %.3f s  %dx%d", posterURL.lastPathComponent, posterActual.seconds, poster.width, poster.height)
    )

    // The strip: keyframes at or before 0, step, 2 step …
    let times = stride(from: 0.0, to: duration.seconds, by: step).map { CMTime(seconds: $0, preferredTimescale: 600) }
    var written = 1
    for await result in generator.images(for: times) {
        switch result {
        case .success(let requested, let image, let actual):
            let index = Int((requested.seconds / step).rounded())
            let file = folder.appendingPathComponent(String(format: "%@-%04d.jpg", name, index))
            try write(image, to: file, jpegQuality: 0.7)
            written += 1
            print(
                String(
                    format: "%@  %.3f s (asked %.3f s)  %dx%d", file.lastPathComponent, actual.seconds,
                    requested.seconds, image.width, image.height))
        case .failure(let requested, let error):
            // Never a silent gap: a time without a picture is reported.
            print(String(format: "%@  %.3f s  no image: %@", name, requested.seconds, error.localizedDescription))
        }
    }
    return written
}

var arguments = Array(CommandLine.arguments.dropFirst())
var step = 10.0
var width = 320
var inputs: [String] = []
var folderPath: String?
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "--every": step = Double(arguments.isEmpty ? "" : arguments.removeFirst()) ?? 0
    case "--width": width = Int(arguments.isEmpty ? "" : arguments.removeFirst()) ?? 0
    default:
        if folderPath == nil { folderPath = argument } else { inputs.append(argument) }
    }
}
guard let folderPath, !inputs.isEmpty, step > 0, width >= 16 else {
    FileHandle.standardError.write(
        Data("usage: ServerThumbnailer OUTPUT-FOLDER [--every SECONDS] [--width PIXELS] FILE|URL...\n".utf8))
    exit(2)
}
let folder = URL(fileURLWithPath: folderPath, isDirectory: true)
var failures = 0
do {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
} catch {
    FileHandle.standardError.write(Data("ServerThumbnailer: \(error)\n".utf8))
    exit(1)
}
for input in inputs {
    let url = input.contains("://") ? URL(string: input)! : URL(fileURLWithPath: input)
    do {
        let count = try await thumbnail(url, into: folder, every: step, width: width)
        print("\(url.lastPathComponent): \(count) images")
    } catch {
        failures += 1
        FileHandle.standardError.write(Data("ServerThumbnailer: \(url.lastPathComponent): \(error)\n".utf8))
    }
}
exit(failures == 0 ? 0 : 1)
