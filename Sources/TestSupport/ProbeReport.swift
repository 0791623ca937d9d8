import Foundation

/// What `ffprobe -show_format -show_streams` says about a file: the independent reference for stream layout.
///
/// Only the fields tests use are decoded; ffprobe prints many numbers as strings, and those are converted.
public struct ProbeReport: Sendable, Decodable {
    /// One stream.
    public struct Stream: Sendable, Decodable {
        public var index: Int
        /// `"h264"`, `"aac"`, `"subrip"`, …; `nil` when libavcodec knows no such codec (ffprobe's JSON omits it;
        /// its other writers print "unknown").
        public var codecName: String?
        /// `"video"`, `"audio"`, `"subtitle"`, `"data"`, `"attachment"`.
        public var codecType: String
        public var width: Int?
        public var height: Int?
        /// `"yuv420p"`, … (`"unknown"` for undecodable video).
        public var pixelFormat: String?
        public var sampleRate: Int?
        public var channels: Int?
        /// The stream time base as ffprobe prints it, e.g. `"1/15360"`.
        public var timeBase: String?
        /// The duration in time-base units, when the container states it.
        public var durationTS: Int64?
        /// The duration in seconds, when the container states it.
        public var duration: Double?
        /// The frame or packet count, when the container states it.
        public var frameCount: Int?
        /// The average frame rate as printed, e.g. `"30/1"`.
        public var averageFrameRate: String?
        /// Stream tags, e.g. `language`, `title`.
        public var tags: [String: String]
        /// The display-matrix rotation in degrees (counterclockwise positive), when the stream has one.
        public var rotation: Int?

        enum CodingKeys: String, CodingKey {
            case index
            case codecName = "codec_name"
            case codecType = "codec_type"
            case width, height
            case pixelFormat = "pix_fmt"
            case sampleRate = "sample_rate"
            case channels
            case timeBase = "time_base"
            case durationTS = "duration_ts"
            case duration
            case frameCount = "nb_frames"
            case averageFrameRate = "avg_frame_rate"
            case tags
            case sideData = "side_data_list"
        }

        struct SideData: Decodable {
            var rotation: Int?
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            index = try container.decode(Int.self, forKey: .index)
            codecName = try container.decodeIfPresent(String.self, forKey: .codecName)
            codecType = try container.decodeIfPresent(String.self, forKey: .codecType) ?? "unknown"
            width = try container.decodeIfPresent(Int.self, forKey: .width)
            height = try container.decodeIfPresent(Int.self, forKey: .height)
            pixelFormat = try container.decodeIfPresent(String.self, forKey: .pixelFormat)
            sampleRate = (try container.decodeIfPresent(String.self, forKey: .sampleRate)).flatMap { Int($0) }
            channels = try container.decodeIfPresent(Int.self, forKey: .channels)
            timeBase = try container.decodeIfPresent(String.self, forKey: .timeBase)
            durationTS = try container.decodeIfPresent(Int64.self, forKey: .durationTS)
            duration = (try container.decodeIfPresent(String.self, forKey: .duration)).flatMap { Double($0) }
            frameCount = (try container.decodeIfPresent(String.self, forKey: .frameCount)).flatMap { Int($0) }
            averageFrameRate = try container.decodeIfPresent(String.self, forKey: .averageFrameRate)
            tags = try container.decodeIfPresent([String: String].self, forKey: .tags) ?? [:]
            let sideData = try container.decodeIfPresent([SideData].self, forKey: .sideData) ?? []
            rotation = sideData.lazy.compactMap(\.rotation).first
        }
    }

    /// The container.
    public struct Format: Sendable, Decodable {
        /// ffprobe's `format_name`, e.g. `"mov,mp4,m4a,3gp,3g2,mj2"`.
        public var formatName: String
        /// The duration in seconds.
        public var duration: Double?
        /// The first timestamp in seconds (MPEG-TS starts at 1.4 s), when known.
        public var startTime: Double?
        /// Container tags, e.g. `title`, `creation_time`.
        public var tags: [String: String]

        enum CodingKeys: String, CodingKey {
            case formatName = "format_name"
            case startTime = "start_time"
            case duration, tags
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            formatName = try container.decode(String.self, forKey: .formatName)
            duration = (try container.decodeIfPresent(String.self, forKey: .duration)).flatMap { Double($0) }
            startTime = (try container.decodeIfPresent(String.self, forKey: .startTime)).flatMap { Double($0) }
            tags = try container.decodeIfPresent([String: String].self, forKey: .tags) ?? [:]
        }
    }

    /// The streams in file order.
    public var streams: [Stream]
    /// The container.
    public var format: Format

    /// The streams of one type (`"video"`, `"audio"`, `"subtitle"`), in file order.
    public func streams(ofType type: String) -> [Stream] {
        streams.filter { $0.codecType == type }
    }

    /// Runs `ffprobe` on `url`; throws `ExternalToolError.failed` when ffprobe cannot open the file.
    /// `inputOptions` go before the input (e.g. `HLSFixture.ffmpegInputOptions`).
    public static func probe(_ url: URL, inputOptions: [String] = []) throws(ExternalToolError) -> ProbeReport {
        let arguments = ["-v", "error", "-show_format", "-show_streams", "-of", "json"] + inputOptions + [url.path]
        let data = try ExternalTool.output(of: "ffprobe", arguments)
        do {
            return try JSONDecoder().decode(ProbeReport.self, from: data)
        } catch {
            throw ExternalToolError.failed(
                tool: "ffprobe", arguments: arguments, status: 0, standardError: "unreadable JSON: \(error)")
        }
    }

    /// The presentation times (seconds) and byte positions of `url`'s packets in one stream (`a:0` by default), in
    /// file order.
    public static func packetPositions(
        _ url: URL, stream: String = "a:0"
    ) throws(ExternalToolError) -> [(seconds: Double, position: Int)] {
        let arguments = [
            "-v", "error", "-select_streams", stream, "-show_entries", "packet=pts_time,pos", "-of", "csv=p=0",
            url.path,
        ]
        let text = String(decoding: try ExternalTool.output(of: "ffprobe", arguments), as: UTF8.self)
        return text.split(separator: "\n").compactMap { line -> (seconds: Double, position: Int)? in
            let fields = line.split(separator: ",")
            guard fields.count >= 2, let t = Double(fields[0]), let p = Int(fields[1]) else { return nil }
            return (t, p)
        }
    }

    /// The presentation timestamps of `url`'s packets in one stream (`0:v:0` by default), in its time base,
    /// sorted, with whether each packet is a keyframe.
    public static func packetTimes(
        _ url: URL, stream: String = "v:0", inputOptions: [String] = []
    ) throws(ExternalToolError) -> [(pts: Int64, isKeyframe: Bool)] {
        let arguments =
            ["-v", "error", "-select_streams", stream, "-show_entries", "packet=pts,flags", "-of", "csv=p=0"]
            + inputOptions + [url.path]
        let text = String(decoding: try ExternalTool.output(of: "ffprobe", arguments), as: UTF8.self)
        return text.split(separator: "\n").compactMap { line -> (pts: Int64, isKeyframe: Bool)? in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count >= 2, let pts = Int64(fields[0]) else { return nil }
            return (pts, fields[1].contains("K"))
        }.sorted { $0.pts < $1.pts }
    }
}
