import CFFmpeg

/// What a QuickTime / MP4 movie header (`moov/mvhd`) says the whole presentation prefers: the rate and volume to
/// play it at and the transform to show it with. libavformat reads the box but keeps only the matrix (folded into
/// each video track's display matrix), so the box is read here, from the same URL with the same protocol options.
public struct MovieHeader: Sendable, Equatable {
    /// The preferred rate (16.16 fixed point in the box; 1 is normal).
    public var rate: Double
    /// The preferred volume (8.8 fixed point; 1 is full).
    public var volume: Double
    /// The matrix `a b u / c d v / x y w` as stored: a, b, c, d, x, y in 16.16 and u, v, w in 2.30 fixed point.
    public var matrix: [Double]

    public init(rate: Double, volume: Double, matrix: [Double]) {
        self.rate = rate
        self.volume = volume
        self.matrix = matrix
    }

    /// Reads the movie header of the file at `url` (a path or any URL libavformat opens, with `options` such as the
    /// HTTP headers), walking the top-level boxes to `moov` (skipping over `mdat` without reading it). Nil when the
    /// input has no `moov/mvhd` or is not a QuickTime-family file; never throws (a header that cannot be read leaves
    /// the defaults).
    public static func read(url: String, options: [String: String] = [:]) -> MovieHeader? {
        var dict: OpaquePointer?
        for (k, v) in options { av_dict_set(&dict, k, v, 0) }
        defer { av_dict_free(&dict) }
        var pb: UnsafeMutablePointer<AVIOContext>?
        guard avio_open2(&pb, url, AVIO_FLAG_READ, nil, &dict) >= 0, let io = pb else { return nil }
        defer { avio_closep(&pb) }
        let size = avio_size(io)
        guard let moov = findBox("moov", in: io, from: 0, to: size > 0 ? size : Int64.max, limit: 64) else {
            return nil
        }
        guard let mvhd = findBox("mvhd", in: io, from: moov.payload, to: moov.end, limit: 64) else { return nil }
        guard avio_seek(io, mvhd.payload, SEEK_SET) >= 0 else { return nil }
        let version = avio_r8(io)
        avio_skip(io, 3)  // flags
        // creation and modification times, timescale, duration
        avio_skip(io, version == 1 ? 28 : 16)
        let rate = Double(Int32(bitPattern: avio_rb32(io))) / 65536
        let volume = Double(Int16(bitPattern: UInt16(truncatingIfNeeded: avio_rb16(io)))) / 256
        avio_skip(io, 10)  // reserved
        var matrix: [Double] = []
        for i in 0..<9 {
            let raw = Double(Int32(bitPattern: avio_rb32(io)))
            matrix.append(i % 3 == 2 ? raw / 1_073_741_824 : raw / 65536)
        }
        guard avio_feof(io) == 0, io.pointee.error == 0 else { return nil }
        return MovieHeader(rate: rate, volume: volume, matrix: matrix)
    }

    /// The box of `type` among the boxes from offset `start` to `end`: its payload's offset and its end.
    private static func findBox(
        _ type: String, in io: UnsafeMutablePointer<AVIOContext>, from start: Int64, to end: Int64, limit: Int
    ) -> (payload: Int64, end: Int64)? {
        let wanted = Array(type.utf8).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        var offset = start
        for _ in 0..<limit where offset + 8 <= end {
            guard avio_seek(io, offset, SEEK_SET) >= 0 else { return nil }
            var boxSize = Int64(avio_rb32(io))
            let boxType = avio_rb32(io)
            var header: Int64 = 8
            if boxSize == 1 {
                boxSize = Int64(bitPattern: avio_rb64(io))
                header = 16
            } else if boxSize == 0 {
                boxSize = end - offset
            }
            guard avio_feof(io) == 0, boxSize >= header else { return nil }
            if boxType == wanted { return (offset + header, min(end, offset + boxSize)) }
            offset += boxSize
        }
        return nil
    }
}
