import Foundation

/// A 10-bit HDR (PQ) copy of `Fixture.h264AAC`'s first 2 s, made at test time: HEVC Main 10 in MP4, tagged BT.2020
/// primaries and matrix, SMPTE ST 2084 (PQ) transfer, video range. The pixel values are the SDR picture's, widened to
/// 10 bits, so the frame-index strip reads the same (white bands are PQ's peak, black ones its floor) while the rest
/// of the picture is interpreted as PQ light levels.
///
/// Written once per fixture set into `derived/` (renamed into place when whole).
public enum HDRFixture {
    /// The file's URL, made on first use.
    public static func url() throws -> URL { try made.get() }

    /// The ffmpeg filter chain that tone-maps the file's pictures to SDR BT.709, what media servers run (and what
    /// the image generator's `.forceSDR` runs through libavfilter): a reference for tests.
    public static let toneMapFilter =
        "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,"
        + "zscale=t=bt709:m=bt709:r=tv,format=yuv420p"

    private static let made: Result<URL, any Error> = Result { try make() }

    private static func make() throws -> URL {
        let base = try Fixtures.url(.h264AAC)
        let folder = base.deletingLastPathComponent().appendingPathComponent("derived")
        let url = folder.appendingPathComponent("hdr_pq_hevc10.mp4")
        if FileManager.default.fileExists(atPath: url.path) { return url }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let temporary = folder.appendingPathComponent(".hdr.\(getpid()).\(UUID().uuidString).mp4")
        let arguments = [
            "-nostdin", "-hide_banner", "-loglevel", "error", "-i", base.path, "-t", "2", "-an",
            "-vf", "format=yuv420p10le", "-c:v", "libx265", "-preset", "ultrafast",
            "-x265-params",
            "log-level=error:pools=1:frame-threads=1:keyint=30:colorprim=bt2020:transfer=smpte2084:"
                + "colormatrix=bt2020nc",
            "-color_primaries", "bt2020", "-color_trc", "smpte2084", "-colorspace", "bt2020nc", "-color_range", "tv",
            "-tag:v", "hvc1", "-f", "mp4", temporary.path,
        ]
        _ = try ExternalTool.output(of: "ffmpeg", arguments)
        if rename(temporary.path, url.path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown)
        }
        return url
    }
}
