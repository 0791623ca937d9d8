import Foundation

/// Decodes media with the `ffmpeg` command-line tool, independently of the library under test: the reference that
/// playback output is compared against.
///
/// Frames are selected by presentation-order index (ffmpeg's `select` filter `n`, which equals the drawn frame
/// index on fixtures) and written with `-fps_mode passthrough`, so none is duplicated or dropped.
public enum ReferenceDecoder {
    /// Decodes video frames of `url` to raw pixels.
    ///
    /// - Parameters:
    ///   - indices: the presentation-order indices to keep (any order; frames come back in ascending order);
    ///     `nil` for all frames.
    ///   - pixelFormat: `.gray` (8-bit luma) or a packed 4-byte layout.
    ///   - size: scale every frame to this size first (ffmpeg's default bicubic scaler); `nil` keeps the coded
    ///     size.
    ///   - autorotate: apply the display matrix as ffmpeg's player would; `false` (the default) keeps the coded
    ///     orientation, as Apple's pixel buffers do.
    ///   - videoStream: which video stream (`0:v:<n>`).
    ///   - inputOptions: options before the input (e.g. `HLSFixture.ffmpegInputOptions`).
    public static func videoFrames(
        of url: URL, indices: [Int]? = nil, pixelFormat: RawPixelFormat = .gray, size: (width: Int, height: Int)? = nil,
        autorotate: Bool = false, videoStream: Int = 0, inputOptions: [String] = []
    ) throws(ExternalToolError) -> [RawVideoFrame] {
        var width: Int
        var height: Int
        if let size {
            (width, height) = size
        } else {
            let report = try ProbeReport.probe(url, inputOptions: inputOptions)
            let videos = report.streams.filter { $0.codecType == "video" }
            guard videoStream < videos.count, let codedWidth = videos[videoStream].width,
                let codedHeight = videos[videoStream].height
            else {
                throw ExternalToolError.failed(
                    tool: "ffprobe", arguments: [url.path], status: 0,
                    standardError: "no video stream \(videoStream) with a size")
            }
            (width, height) = (codedWidth, codedHeight)
            if autorotate, let rotation = videos[videoStream].rotation, abs(rotation) % 180 == 90 {
                (width, height) = (height, width)
            }
        }
        var filters: [String] = []
        if let indices {
            let terms = Set(indices).sorted().map { "eq(n\\,\($0))" }
            filters.append("select='\(terms.joined(separator: "+"))'")
        }
        if size != nil { filters.append("scale=\(width):\(height)") }
        var arguments = ["-nostdin", "-hide_banner", "-loglevel", "error"]
        if !autorotate { arguments.append("-noautorotate") }
        arguments += inputOptions + ["-i", url.path, "-map", "0:v:\(videoStream)"]
        if !filters.isEmpty { arguments += ["-vf", filters.joined(separator: ",")] }
        arguments += ["-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", pixelFormat.rawValue, "-"]
        let data = try ExternalTool.output(of: "ffmpeg", arguments)
        let bytesPerRow = width * pixelFormat.bytesPerPixel
        let frameSize = bytesPerRow * height
        let bytes = [UInt8](data)
        return stride(from: 0, to: bytes.count - frameSize + 1, by: frameSize).map { offset in
            RawVideoFrame(
                width: width, height: height, bytesPerRow: bytesPerRow, pixelFormat: pixelFormat,
                bytes: Array(bytes[offset..<(offset + frameSize)]))
        }
    }

    /// Decodes audio stream `audioStream` (`0:a:<n>`) of `url` to interleaved 32-bit float PCM.
    ///
    /// - Parameters:
    ///   - start: seek (accurately) to this many seconds first; `nil` decodes from the start.
    ///   - duration: stop after this many seconds; `nil` decodes to the end.
    ///   - sampleRate: resample to this rate; `nil` keeps the stream's.
    ///   - channelCount: remix to this many channels; `nil` keeps the stream's.
    ///   - inputOptions: options before the input (e.g. `HLSFixture.ffmpegInputOptions`).
    public static func audioSamples(
        of url: URL, audioStream: Int = 0, start: Double? = nil, duration: Double? = nil, sampleRate: Int? = nil,
        channelCount: Int? = nil, inputOptions: [String] = []
    ) throws(ExternalToolError) -> [Float] {
        var arguments = ["-nostdin", "-hide_banner", "-loglevel", "error"]
        if let start { arguments += ["-ss", String(start)] }
        arguments += inputOptions + ["-i", url.path, "-map", "0:a:\(audioStream)"]
        if let duration { arguments += ["-t", String(duration)] }
        if let sampleRate { arguments += ["-ar", String(sampleRate)] }
        if let channelCount { arguments += ["-ac", String(channelCount)] }
        arguments += ["-f", "f32le", "-c:a", "pcm_f32le", "-"]
        let data = try ExternalTool.output(of: "ffmpeg", arguments)
        return floats(fromLittleEndian: data)
    }

    /// Reinterprets raw little-endian 32-bit floats (a trailing partial value is dropped).
    public static func floats(fromLittleEndian data: Data) -> [Float] {
        let count = data.count / 4
        var result = [Float](repeating: 0, count: count)
        data.withUnsafeBytes { raw in
            for index in 0..<count {
                let word = raw.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self)
                result[index] = Float(bitPattern: UInt32(littleEndian: word))
            }
        }
        return result
    }
}

/// The raw pixel formats `ReferenceDecoder` produces; the raw values are ffmpeg's `-pix_fmt` names.
public enum RawPixelFormat: String, Sendable, CaseIterable {
    /// One byte of luma per pixel.
    case gray
    /// Packed B, G, R, A bytes.
    case bgra
    /// Packed A, R, G, B bytes.
    case argb
    /// Packed R, G, B, A bytes.
    case rgba
    /// Packed A, B, G, R bytes.
    case abgr

    /// Bytes per pixel: 1 for `.gray`, 4 otherwise.
    public var bytesPerPixel: Int { self == .gray ? 1 : 4 }

    /// The packed layout, `nil` for `.gray`.
    public var packedLayout: PackedPixelLayout? { PackedPixelLayout(rawValue: rawValue) }
}

/// One decoded picture in memory: rows of `bytesPerRow` bytes, top row first.
public struct RawVideoFrame: Sendable {
    public var width: Int
    public var height: Int
    public var bytesPerRow: Int
    public var pixelFormat: RawPixelFormat
    public var bytes: [UInt8]

    public init(width: Int, height: Int, bytesPerRow: Int, pixelFormat: RawPixelFormat, bytes: [UInt8]) {
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
        self.pixelFormat = pixelFormat
        self.bytes = bytes
    }

    /// Reads the fixture frame index drawn on this picture (see `FrameIndexReader`).
    public func frameIndex(minimumMargin: Double = FrameIndexReader.defaultMinimumMargin) -> FrameIndexReading? {
        bytes.withUnsafeBytes { raw in
            if let layout = pixelFormat.packedLayout {
                return FrameIndexReader.read(
                    pixels: raw, layout: layout, width: width, height: height, bytesPerRow: bytesPerRow,
                    minimumMargin: minimumMargin)
            }
            return FrameIndexReader.read(
                luma: raw, width: width, height: height, bytesPerRow: bytesPerRow, minimumMargin: minimumMargin)
        }
    }
}
