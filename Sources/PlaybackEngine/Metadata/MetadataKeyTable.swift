import Foundation

/// The key table of a QuickTime timed-metadata track (a `mebx` sample entry: QuickTime File Format, "Timed
/// Metadata Media"), and the decoding of its samples with it. libavformat 5.1 demuxes such a track as a data stream
/// of its samples but drops the sample entry's body (it keeps one only for `tmcd`), so the table is read from the
/// file's `moov` here: `trak` → `mdia` → `minf` → `stbl` → `stsd` → `mebx` → `keys`.
///
/// A sample is a run of boxes whose type is a local key ID (an index into the table) and whose body is the value,
/// typed by the key's `dtyp` (well-known types: UTF-8/16, big-endian integers and floats) or raw.
///
/// Damaged input never traps: a box that overruns its parent ends that parent's walk; a `moov` larger than
/// ``maximumMovieBox`` is not read.
package struct MetadataKeyTable: Sendable, Equatable {
    /// One key: its namespace (`mdta` for reverse-DNS keys) and name, and the well-known data type of its values
    /// (nil: raw bytes).
    package struct Key: Sendable, Equatable {
        package var namespace: String
        package var name: String
        package var dataType: UInt32?
    }

    /// A decoded value.
    package enum Value: Sendable, Equatable {
        case string(String)
        case integer(Int64)
        case float(Double)
        case data([UInt8])
    }

    /// The keys by local key ID.
    package var keys: [UInt32: Key]

    /// `moov` boxes larger than this are not read (a movie's sample tables take a few MiB at most).
    static let maximumMovieBox = 64 << 20

    /// The key tables of the `mebx` tracks of the MP4/QuickTime file at `path`, by track ID (`tkhd`); empty when
    /// the file cannot be read or has none.
    package static func tables(inFileAt path: String) -> [Int32: MetadataKeyTable] {
        guard let file = FileHandle(forReadingAtPath: path) else { return [:] }
        defer { try? file.close() }
        guard let movie = movieBox(in: file) else { return [:] }
        var tables: [Int32: MetadataKeyTable] = [:]
        for (type, trak) in boxes(in: movie[...]) where type == "trak" {
            var trackID: Int32?
            var table: MetadataKeyTable?
            for (type, body) in boxes(in: trak) {
                if type == "tkhd" { trackID = trackHeaderID(body) }
                if type == "mdia" { table = keyTable(inMedia: body) }
            }
            if let trackID, let table { tables[trackID] = table }
        }
        return tables
    }

    /// The values of one sample, in the sample's order (boxes of unknown local key IDs are skipped).
    package func decode(_ sample: [UInt8]) -> [(key: Key, value: Value)] {
        var values: [(key: Key, value: Value)] = []
        for (type, body) in Self.boxes(in: sample[...], typeAsNumber: true) {
            guard let id = UInt32(type), let key = keys[id] else { continue }
            values.append((key, Self.value(Array(body), type: key.dataType)))
        }
        return values
    }

    // MARK: Reading

    /// The body of the file's top-level `moov`.
    private static func movieBox(in file: FileHandle) -> [UInt8]? {
        var offset: UInt64 = 0
        while true {
            guard (try? file.seek(toOffset: offset)) != nil, let header = try? file.read(upToCount: 16),
                header.count >= 8
            else { return nil }
            let bytes = [UInt8](header)
            var size = UInt64(be32(bytes, 0))
            var headerLength: UInt64 = 8
            if size == 1 {
                guard bytes.count >= 16 else { return nil }
                size = UInt64(be32(bytes, 8)) << 32 | UInt64(be32(bytes, 12))
                headerLength = 16
            }
            let type = String(decoding: bytes[4..<8], as: UTF8.self)
            if type == "moov" {
                let length = size == 0 ? UInt64(maximumMovieBox) : size - min(size, headerLength)
                guard length <= UInt64(maximumMovieBox), (try? file.seek(toOffset: offset + headerLength)) != nil,
                    let body = try? file.read(upToCount: Int(length))
                else { return nil }
                return [UInt8](body)
            }
            guard size >= headerLength else { return nil }
            offset += size
        }
    }

    /// `tkhd`'s track ID (version 0: after 4 + 4 + 4 bytes of version/flags and times; version 1: 4 + 8 + 8).
    private static func trackHeaderID(_ body: ArraySlice<UInt8>) -> Int32? {
        guard let version = body.first else { return nil }
        let at = body.startIndex + (version == 1 ? 20 : 12)
        guard at + 4 <= body.endIndex else { return nil }
        return Int32(bitPattern: be32(Array(body[at..<at + 4]), 0))
    }

    /// The key table of a `mdia` whose sample description's first entry is `mebx`.
    private static func keyTable(inMedia mdia: ArraySlice<UInt8>) -> MetadataKeyTable? {
        guard let minf = child("minf", of: mdia), let stbl = child("stbl", of: minf),
            let stsd = child("stsd", of: stbl), stsd.count >= 8
        else { return nil }
        // stsd: version/flags and an entry count, then the entries; a mebx entry has 6 reserved bytes and a data
        // reference index before its boxes.
        guard let (type, entry) = boxes(in: stsd.dropFirst(8)).first, type == "mebx", entry.count >= 8,
            let keysBox = child("keys", of: entry.dropFirst(8))
        else { return nil }
        var keys: [UInt32: Key] = [:]
        for (id, declaration) in boxes(in: keysBox, typeAsNumber: true) {
            guard let local = UInt32(id), let keyd = child("keyd", of: declaration), keyd.count >= 4 else {
                continue
            }
            let namespace = String(decoding: keyd.prefix(4), as: UTF8.self)
            var key = Key(namespace: namespace, name: String(decoding: keyd.dropFirst(4), as: UTF8.self))
            if let dtyp = child("dtyp", of: declaration), dtyp.count >= 8 {
                let fields = Array(dtyp)
                // Namespace 0: a well-known type number follows; any other namespace types the value by name.
                if be32(fields, 0) == 0 { key.dataType = be32(fields, 4) }
            }
            keys[local] = key
        }
        return keys.isEmpty ? nil : MetadataKeyTable(keys: keys)
    }

    private static func child(_ type: String, of parent: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        boxes(in: parent).first { $0.type == type }?.body
    }

    /// The boxes of `data` (32-bit sizes; a 64-bit size or a size running past `data` ends the walk). With
    /// `typeAsNumber`, a type is the decimal value of its four bytes (local key IDs).
    private static func boxes(
        in data: ArraySlice<UInt8>, typeAsNumber: Bool = false
    ) -> [(type: String, body: ArraySlice<UInt8>)] {
        var found: [(type: String, body: ArraySlice<UInt8>)] = []
        var at = data.startIndex
        while at + 8 <= data.endIndex {
            let size = Int(be32(Array(data[at..<at + 4]), 0))
            guard size >= 8, size <= data.endIndex - at else { break }
            let typeBytes = Array(data[at + 4..<at + 8])
            let type =
                typeAsNumber ? String(be32(typeBytes, 0)) : String(decoding: typeBytes, as: UTF8.self)
            found.append((type, data[at + 8..<at + size]))
            at += size
        }
        return found
    }

    private static func be32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        guard at + 4 <= bytes.count else { return 0 }
        return UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8
            | UInt32(bytes[at + 3])
    }

    // MARK: Values

    /// A value of well-known type `type` (QuickTime's table: 1 UTF-8, 2 UTF-16BE, 21/22 big-endian signed/unsigned
    /// integers of 1–8 bytes, 23/24 big-endian float32/64, 65–67 and 74 signed 8/16/32/64-bit, 75–78 unsigned), raw
    /// bytes for any other type or a length that does not fit.
    static func value(_ body: [UInt8], type: UInt32?) -> Value {
        switch type {
        case 1: return .string(String(decoding: body, as: UTF8.self))
        case 2:
            guard body.count % 2 == 0 else { return .data(body) }
            let units = stride(from: 0, to: body.count, by: 2).map { UInt16(body[$0]) << 8 | UInt16(body[$0 + 1]) }
            return .string(String(decoding: units, as: UTF16.self))
        case 21, 65, 66, 67, 74:
            let width = [65: 1, 66: 2, 67: 4, 74: 8][type ?? 0] ?? body.count
            guard body.count == width, (1...8).contains(width) else { return .data(body) }
            let unsigned = body.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let shift = UInt64(64 - 8 * width)
            return .integer(Int64(bitPattern: unsigned << shift) >> Int64(shift))
        case 22, 75, 76, 77, 78:
            let width = [75: 1, 76: 2, 77: 4, 78: 8][type ?? 0] ?? body.count
            guard body.count == width, (1...8).contains(width) else { return .data(body) }
            let unsigned = body.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return unsigned <= UInt64(Int64.max) ? .integer(Int64(unsigned)) : .data(body)
        case 23:
            guard body.count == 4 else { return .data(body) }
            return .float(Double(Float(bitPattern: UInt32(be32(body, 0)))))
        case 24:
            guard body.count == 8 else { return .data(body) }
            return .float(Double(bitPattern: UInt64(be32(body, 0)) << 32 | UInt64(be32(body, 4))))
        default: return .data(body)
        }
    }
}
