import Foundation
import HLS
import XCTest

/// The tags that describe segments: PROGRAM-DATE-TIME, DATERANGE, BYTERANGE, KEY, MAP, GAP, BITRATE.
final class HLSSegmentTagsTests: XCTestCase {
    // MARK: Program date and time

    /// What `ffmpeg -f hls -hls_flags program_date_time` (FFmpeg 5.1) writes: the tag between `#EXTINF` and the URI,
    /// milliseconds, a `+0000` zone.
    func testFFmpegProgramDateTime() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:4
            #EXT-X-MEDIA-SEQUENCE:0
            #EXTINF:4.000000,
            #EXT-X-PROGRAM-DATE-TIME:2026-12-01T16:17:21.560+0000
            out0.ts
            #EXTINF:4.000000,
            #EXT-X-PROGRAM-DATE-TIME:2026-12-01T16:17:25.560+0000
            out1.ts
            #EXTINF:1.000000,
            #EXT-X-PROGRAM-DATE-TIME:2026-12-01T16:17:29.560+0000
            out2.ts
            #EXT-X-ENDLIST
            """)
        let dates = playlist.segments.map { $0.programDateTime?.timeIntervalSince1970 ?? .nan }
        let expected = [21.56, 25.56, 29.56].map { utc(2026, 12, 1, 16, 17, 0).timeIntervalSince1970 + $0 }
        for (date, expected) in zip(dates, expected) { XCTAssertEqual(date, expected, accuracy: 1e-6) }
    }

    /// Segments after a dated one get its date plus the durations between, segments before the first dated one
    /// its date minus the durations between; a discontinuity without a date ends the run.
    func testProgramDateTimeIsExtrapolatedUntilADiscontinuity() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:10
            #EXTINF:10,
            before.ts
            #EXT-X-PROGRAM-DATE-TIME:2010-02-19T14:54:23.031+08:00
            #EXTINF:10,
            a.ts
            #EXTINF:9.5,
            b.ts
            #EXTINF:10,
            c.ts
            #EXT-X-DISCONTINUITY
            #EXTINF:10,
            d.ts
            #EXT-X-DISCONTINUITY
            #EXT-X-PROGRAM-DATE-TIME:2010-02-19T07:00:00Z
            #EXTINF:10,
            e.ts
            #EXTINF:10,
            f.ts
            """)
        let start = utc(2010, 2, 19, 6, 54, 23, 0.031).timeIntervalSince1970
        let dates = playlist.segments.map { $0.programDateTime?.timeIntervalSince1970 }
        XCTAssertEqual(dates[0]!, start - 10, accuracy: 1e-6)
        XCTAssertEqual(dates[1]!, start, accuracy: 1e-6)
        XCTAssertEqual(dates[2]!, start + 10, accuracy: 1e-6)
        XCTAssertEqual(dates[3]!, start + 19.5, accuracy: 1e-6)
        XCTAssertNil(dates[4])
        XCTAssertEqual(dates[5]!, utc(2010, 2, 19, 7, 0, 0).timeIntervalSince1970, accuracy: 1e-6)
        XCTAssertEqual(dates[6]!, utc(2010, 2, 19, 7, 0, 10).timeIntervalSince1970, accuracy: 1e-6)
    }

    /// A live window that slid past the dated segment: the dates run back from the first dated segment, but not
    /// across a discontinuity.
    func testDatesAreFilledBackToADiscontinuity() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-MEDIA-SEQUENCE:40
            #EXTINF:4,
            s40.ts
            #EXT-X-DISCONTINUITY
            #EXTINF:4,
            s41.ts
            #EXTINF:3.5,
            s42.ts
            #EXT-X-PROGRAM-DATE-TIME:2024-06-01T12:00:00Z
            #EXTINF:4,
            s43.ts
            #EXTINF:4,
            s44.ts
            """)
        let noon = utc(2024, 6, 1, 12, 0, 0).timeIntervalSince1970
        let dates = playlist.segments.map { $0.programDateTime?.timeIntervalSince1970 }
        XCTAssertNil(dates[0])
        XCTAssertEqual(dates[1]!, noon - 7.5, accuracy: 1e-6)
        XCTAssertEqual(dates[2]!, noon - 3.5, accuracy: 1e-6)
        XCTAssertEqual(dates[3]!, noon, accuracy: 1e-6)
        XCTAssertEqual(dates[4]!, noon + 4, accuracy: 1e-6)
        XCTAssertNil(try parseMedia("#EXTM3U\n#EXTINF:4,\na.ts\n").segments[0].programDateTime)
    }

    func testDateSpellings() throws {
        let noon = utc(2024, 2, 29, 12, 0, 0).timeIntervalSince1970
        for (text, expected) in [
            ("2024-02-29T12:00:00Z", noon), ("2024-02-29t12:00:00z", noon), ("2024-02-29T12:00:00", noon),
            ("2024-02-29T12:00:00.000Z", noon), ("2024-02-29T12:00:00.5Z", noon + 0.5),
            ("2024-02-29T12:00:00.123456789Z", noon + 0.123456789), ("2024-02-29T14:00:00+02:00", noon),
            ("2024-02-29T14:00:00+0200", noon), ("2024-02-29T14:00:00+02", noon),
            ("2024-02-29T06:30:00-05:30", noon), ("2024-03-01T05:00:00+17:00", noon),
            ("2024-02-29T12:00:00,250Z", noon + 0.25), ("1969-12-31T23:59:59Z", -1.0),
        ] {
            let playlist = try parseMedia("#EXTM3U\n#EXT-X-PROGRAM-DATE-TIME:\(text)\n#EXTINF:1,\na.ts\n")
            XCTAssertEqual(
                playlist.segments[0].programDateTime?.timeIntervalSince1970 ?? .nan, expected, accuracy: 1e-6, text)
        }
        for text in [
            "2023-02-29T12:00:00Z", "2100-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-04-31T00:00:00Z",
            "2024-01-01T24:00:00Z", "2024-01-01T12:60:00Z", "2024-01-01 12:00:00Z", "2024-01-01T12:00Z",
            "2024-01-01T12:00:00.Z", "2024-01-01T12:00:00+2:00", "2024-01-01T12:00:00+02:60", "24-01-01T12:00:00Z",
            "2024-01-01T12:00:00Z junk", "yesterday", "",
        ] {
            assertRefused(
                "#EXTM3U\n#EXT-X-PROGRAM-DATE-TIME:\(text)\n#EXTINF:1,\na.ts\n", .invalidTag, line: 2,
                mentioning: "not an ISO 8601 date")
        }
    }

    // MARK: Date ranges

    /// RFC 8216 section 8.10: an SCTE-35 splice out, and the later tag with the same ID that adds the splice in and
    /// the duration.
    func testSCTE35DateRange() throws {
        let out =
            "0xFC002F0000000000FF000014056FFFFFF000E011622DCAFF000052636200000000000A0008029896F50000008700000000"
        let into = "0xFC002A0000000000FF00000F056FFFFFF000401162802E6100000000000A0008029896F50000008700000000"
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:10
            #EXT-X-PROGRAM-DATE-TIME:2014-03-05T11:14:50Z
            #EXTINF:10,
            a.ts
            #EXT-X-DATERANGE:ID="splice-6FFFFFF0",START-DATE="2014-03-05T11:15:00Z",PLANNED-DURATION=59.993,SCTE35-OUT=\(out)
            #EXTINF:10,
            b.ts
            #EXT-X-DATERANGE:ID="splice-6FFFFFF0",DURATION=59.993,SCTE35-IN=\(into)
            #EXTINF:10,
            c.ts
            """)
        XCTAssertEqual(playlist.dateRanges.count, 1)
        let range = playlist.dateRanges[0]
        XCTAssertEqual(range.id, "splice-6FFFFFF0")
        XCTAssertEqual(range.startDate, utc(2014, 3, 5, 11, 15, 0))
        XCTAssertEqual(range.plannedDuration, 59.993)
        XCTAssertEqual(range.duration, 59.993)
        XCTAssertEqual(range.scte35Out, Data(HLSAttributeList.hexadecimal(out)!))
        XCTAssertEqual(range.scte35Out?.count, 49)
        XCTAssertEqual(range.scte35Out?.prefix(3), Data([0xFC, 0x00, 0x2F]))
        XCTAssertEqual(range.scte35In?.count, 44)
        XCTAssertNil(range.scte35Command)
        XCTAssertNil(range.endDate)
    }

    func testDateRangeClientAttributesAndEndOnNext() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-DATERANGE:ID="ad-1",CLASS="com.example.ad",START-DATE="2024-05-01T10:00:00.000Z",END-DATE="2024-05-01T10:00:30.000Z",X-AD-ID="ad, one=1",X-COM-EXAMPLE-SCORE=-0.75,X-ASSET=0x0A0B,X-MODE=SKIPPABLE,SCTE35-CMD=0xFC30
            #EXT-X-DATERANGE:ID="chapter-1",CLASS="com.example.chapter",START-DATE="2024-05-01T10:00:00Z",END-ON-NEXT=YES
            #EXTINF:6,
            a.ts
            """)
        XCTAssertEqual(playlist.dateRanges.map(\.id), ["ad-1", "chapter-1"])
        let ad = playlist.dateRanges[0]
        XCTAssertEqual(ad.classAttribute, "com.example.ad")
        XCTAssertEqual(ad.endDate, utc(2024, 5, 1, 10, 0, 30))
        XCTAssertEqual(ad.scte35Command, Data([0xFC, 0x30]))
        XCTAssertEqual(
            ad.clientAttributes,
            [
                "X-AD-ID": .string("ad, one=1"), "X-COM-EXAMPLE-SCORE": .number(-0.75),
                "X-ASSET": .hexadecimal([0x0A, 0x0B]), "X-MODE": .enumerated("SKIPPABLE"),
            ])
        XCTAssertFalse(ad.endOnNext)
        XCTAssertTrue(playlist.dateRanges[1].endOnNext)
        XCTAssertEqual(playlist.dateRanges[1].clientAttributes, [:])
    }

    func testBadDateRangesAreRefused() {
        for (attributes, mentioning) in [
            (#"START-DATE="2024-05-01T10:00:00Z""#, "ID is missing"), (#"ID="x""#, "START-DATE is missing"),
            (#"ID="x",START-DATE="soon""#, "START-DATE=\"soon\""),
            (#"ID="x",START-DATE="2024-05-01T10:00:00Z",END-DATE="2024-05-01T09:00:00Z""#, "before START-DATE"),
            (#"ID="x",START-DATE="2024-05-01T10:00:00Z",END-ON-NEXT=YES"#, "needs a CLASS"),
            (#"ID="x",CLASS="c",START-DATE="2024-05-01T10:00:00Z",END-ON-NEXT=YES,DURATION=5"#, "must not come"),
            (#"ID="x",START-DATE="2024-05-01T10:00:00Z",DURATION=-5"#, "DURATION=-5"),
            (#"ID="x",START-DATE="2024-05-01T10:00:00Z",SCTE35-OUT=FC00"#, "SCTE35-OUT"),
        ] {
            assertRefused(
                "#EXTM3U\n#EXT-X-DATERANGE:\(attributes)\n", .invalidAttribute, line: 2, mentioning: mentioning)
        }
    }

    // MARK: Byte ranges

    /// What `ffmpeg -f hls -hls_flags single_file` (FFmpeg 5.1) writes, and the same with offsets omitted.
    func testByteRanges() throws {
        let written = try parseMedia(
            """
            #EXTM3U
            #EXT-X-VERSION:4
            #EXT-X-TARGETDURATION:4
            #EXT-X-MEDIA-SEQUENCE:0
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXTINF:4.000000,
            #EXT-X-BYTERANGE:43992@0
            out.ts
            #EXTINF:4.000000,
            #EXT-X-BYTERANGE:43616@43992
            out.ts
            #EXTINF:1.000000,
            #EXT-X-BYTERANGE:10716@87608
            out.ts
            #EXT-X-ENDLIST
            """)
        let expected = [
            HLSByteRange(length: 43992, offset: 0), HLSByteRange(length: 43616, offset: 43992),
            HLSByteRange(length: 10716, offset: 87608),
        ]
        XCTAssertEqual(written.segments.map(\.byteRange), expected)
        XCTAssertEqual(
            written.segments.map(\.byteRange?.httpRangeHeader),
            ["bytes=0-43991", "bytes=43992-87607", "bytes=87608-98323"])

        let omitted = try parseMedia(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-BYTERANGE:43992@0
            #EXTINF:4,
            out.ts
            #EXT-X-BYTERANGE:43616
            #EXTINF:4,
            out.ts
            #EXT-X-BYTERANGE:10716
            #EXTINF:1,
            out.ts
            #EXTINF:1,
            whole.ts
            """)
        XCTAssertEqual(omitted.segments.prefix(3).map(\.byteRange), expected)
        XCTAssertNil(omitted.segments[3].byteRange)
    }

    func testAnOmittedOffsetNeedsAPreviousSubRangeOfTheSameURI() {
        assertRefused(
            "#EXTM3U\n#EXT-X-BYTERANGE:100\n#EXTINF:1,\na.ts\n", .invalidAttribute, line: 4, mentioning: "no offset")
        assertRefused(
            "#EXTM3U\n#EXT-X-BYTERANGE:100@0\n#EXTINF:1,\na.ts\n#EXT-X-BYTERANGE:100\n#EXTINF:1,\nb.ts\n",
            .invalidAttribute, line: 7, mentioning: "b.ts")
        assertRefused("#EXTM3U\n#EXTINF:1,\na.ts\n#EXT-X-BYTERANGE:100\n#EXTINF:1,\na.ts\n", .invalidAttribute, line: 6)
        assertRefused("#EXTM3U\n#EXT-X-BYTERANGE:abc\n", .invalidAttribute, line: 2)
        assertRefused("#EXTM3U\n#EXT-X-BYTERANGE:10@-1\n", .invalidAttribute, line: 2)
        assertRefused(
            "#EXTM3U\n#EXT-X-BYTERANGE:10@\(Int.max)\n#EXTINF:1,\na.ts\n", .invalidAttribute, line: 4,
            mentioning: "ends beyond")
    }

    // MARK: Keys

    /// RFC 8216 section 8.3: a key per group of segments; a segment's IV defaults to its sequence number.
    func testEncryptedMediaSegments() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-MEDIA-SEQUENCE:7794
            #EXT-X-TARGETDURATION:15

            #EXT-X-KEY:METHOD=AES-128,URI="https://priv.example.com/key.php?r=52"

            #EXTINF:2.833,
            http://media.example.com/fileSequence52-A.ts
            #EXTINF:15.0,
            http://media.example.com/fileSequence52-B.ts
            #EXTINF:13.333,
            http://media.example.com/fileSequence52-C.ts

            #EXT-X-KEY:METHOD=AES-128,URI="https://priv.example.com/key.php?r=53"

            #EXTINF:15.0,
            http://media.example.com/fileSequence53-A.ts
            """)
        XCTAssertEqual(
            playlist.segments.map { $0.key?.uri?.absoluteString },
            ["52", "52", "52", "53"].map { "https://priv.example.com/key.php?r=\($0)" })
        XCTAssertTrue(playlist.segments.allSatisfy { $0.key?.method == .aes128 && $0.key?.iv == nil })
        XCTAssertTrue(playlist.segments.allSatisfy { $0.key?.isIdentityFormat == true })
        let last = playlist.segments[3]
        XCTAssertEqual(last.sequenceNumber, 7797)
        XCTAssertEqual(
            last.key?.initializationVector(forSequenceNumber: last.sequenceNumber),
            [UInt8](repeating: 0, count: 14) + [0x1E, 0x75])
    }

    func testKeyMethodsIVsAndFormats() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-KEY:METHOD=AES-128,URI="keys/k1",IV=0x9c7db8778570d05c3177c349fd9236aa
            #EXTINF:4,
            a.ts
            #EXT-X-KEY:METHOD=NONE
            #EXTINF:4,
            b.ts
            #EXT-X-KEY:METHOD=AES-128,URI="keys/k2",IV=0x1
            #EXTINF:4,
            c.ts
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="https://drm.example.com/fp",KEYFORMAT="com.example.drm",KEYFORMATVERSIONS="1/2"
            #EXTINF:4,
            d.ts
            #EXT-X-KEY:METHOD=NONE
            #EXT-X-KEY:METHOD=SAMPLE-AES-CTR,URI="https://drm.example.com/w",KEYFORMAT="urn:uuid:edef8ba9"
            #EXTINF:4,
            e.ts
            #EXT-X-KEY:METHOD=CHACHA,URI="k3"
            #EXTINF:4,
            f.ts
            """)
        let keys = playlist.segments.map(\.key)
        XCTAssertEqual(keys[0]?.uri?.absoluteString, "https://media.example.com/live/stream/keys/k1")
        XCTAssertEqual(
            keys[0]?.iv,
            [0x9C, 0x7D, 0xB8, 0x77, 0x85, 0x70, 0xD0, 0x5C, 0x31, 0x77, 0xC3, 0x49, 0xFD, 0x92, 0x36, 0xAA])
        XCTAssertEqual(keys[0]?.initializationVector(forSequenceNumber: 0), keys[0]?.iv)
        XCTAssertNil(keys[1])
        XCTAssertEqual(keys[2]?.iv, [UInt8](repeating: 0, count: 15) + [1])
        // The identity AES-128 key still applies to d.ts: a key of another KEYFORMAT does not replace it.
        XCTAssertEqual(keys[3]?.uri?.lastPathComponent, "k2")
        XCTAssertEqual(keys[4]?.method, .sampleAESCTR)
        XCTAssertEqual(keys[4]?.keyFormat, "urn:uuid:edef8ba9")
        XCTAssertFalse(keys[4]?.isIdentityFormat ?? true)
        XCTAssertEqual(keys[5]?.method, .other("CHACHA"))

        let drm = try parseMedia(
            """
            #EXTM3U
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="https://drm.example.com/fp",KEYFORMAT="com.example.drm",KEYFORMATVERSIONS="1/2"
            #EXTINF:4,
            d.ts
            """)
        XCTAssertEqual(
            drm.segments[0].key,
            HLSKey(
                method: .sampleAES, uri: URL(string: "https://drm.example.com/fp")!, keyFormat: "com.example.drm",
                keyFormatVersions: "1/2"))
    }

    func testBadKeysAreRefused() {
        for (attributes, mentioning) in [
            (#"URI="k""#, "METHOD is missing"), ("METHOD=AES-128", "URI is missing"),
            (#"METHOD=AES-128,URI=k"#, "must be a quoted string"),
            (#"METHOD=AES-128,URI="k",IV=0x0102030405060708090A0B0C0D0E0F1011"#, "wider than 128 bits"),
            (#"METHOD=AES-128,URI="k",IV=12345"#, "IV=12345"),
        ] {
            assertRefused("#EXTM3U\n#EXT-X-KEY:\(attributes)\n", .invalidAttribute, line: 2, mentioning: mentioning)
        }
        // Leading zero bytes beyond 16 are the same number.
        XCTAssertEqual(
            try parseMedia(
                "#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\",IV=0x0000000000000000000000000000000000AB\n#EXTINF:1,\na.ts\n"
            )
            .segments[0].key?.iv, [UInt8](repeating: 0, count: 15) + [0xAB])
    }

    // MARK: Maps, gaps, bitrates and the other media tags

    /// What `ffmpeg -f hls -hls_segment_type fmp4` (FFmpeg 5.1) writes, and a map that changes after a
    /// discontinuity, with a byte range.
    func testMaps() throws {
        let ffmpeg = try parseMedia(
            """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:4
            #EXT-X-MEDIA-SEQUENCE:0
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-MAP:URI="init.mp4"
            #EXTINF:4.000000,
            out0.m4s
            #EXTINF:4.000000,
            out1.m4s
            #EXTINF:1.000000,
            out2.m4s
            #EXT-X-ENDLIST
            """)
        XCTAssertEqual(ffmpeg.version, 7)
        XCTAssertEqual(
            ffmpeg.segments.map(\.map),
            Array(repeating: HLSMap(uri: URL(string: "https://media.example.com/live/stream/init.mp4")!), count: 3))

        let changing = try parseMedia(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXTINF:4,
            plain.ts
            #EXT-X-MAP:URI="main.mp4",BYTERANGE="720@0"
            #EXTINF:4,
            main.mp4
            #EXT-X-DISCONTINUITY
            #EXT-X-MAP:URI="ad/init.mp4",BYTERANGE="512"
            #EXTINF:4,
            ad/0.m4s
            """)
        XCTAssertNil(changing.segments[0].map)
        XCTAssertEqual(changing.segments[1].map?.byteRange, HLSByteRange(length: 720, offset: 0))
        XCTAssertEqual(
            changing.segments[2].map?.uri.absoluteString, "https://media.example.com/live/stream/ad/init.mp4")
        XCTAssertEqual(changing.segments[2].map?.byteRange, HLSByteRange(length: 512, offset: 0))

        assertRefused("#EXTM3U\n#EXT-X-MAP:URI=init.mp4\n", .invalidAttribute, line: 2, mentioning: "quoted")
        assertRefused("#EXTM3U\n#EXT-X-MAP:BYTERANGE=\"1@0\"\n", .invalidAttribute, line: 2, mentioning: "URI")
        assertRefused("#EXTM3U\n#EXT-X-MAP:URI=\"i.mp4\",BYTERANGE=\"x@0\"\n", .invalidAttribute, line: 2)
    }

    func testGapsBitratesAndPlaylistFlags() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-VERSION:8
            #EXT-X-TARGETDURATION:2
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-START:TIME-OFFSET=4.5
            #EXT-X-BITRATE:1500
            #EXTINF:2,
            a.ts
            #EXT-X-GAP
            #EXTINF:2,
            b.ts
            #EXT-X-BYTERANGE:100@0
            #EXTINF:2,
            c.ts
            #EXT-X-BITRATE:800
            #EXTINF:2,
            d.ts
            """)
        XCTAssertEqual(playlist.segments.map(\.isGap), [false, true, false, false])
        XCTAssertEqual(playlist.segments.map(\.bitrate), [1_500_000, 1_500_000, nil, 800_000])
        XCTAssertTrue(playlist.independentSegments)
        XCTAssertEqual(playlist.start, HLSStartPoint(timeOffset: 4.5, precise: false))
        assertRefused("#EXTM3U\n#EXT-X-BITRATE:fast\n", .invalidTag, line: 2)
        assertRefused("#EXTM3U\n#EXT-X-START:PRECISE=YES\n", .invalidAttribute, line: 2, mentioning: "TIME-OFFSET")
        assertRefused("#EXTM3U\n#EXT-X-START:TIME-OFFSET=1\n#EXT-X-START:TIME-OFFSET=2\n", .invalidTag, line: 3)
    }

    /// An I-frame playlist as RFC 8216 section 4.3.3.6 describes it: byte ranges into the variant's segments.
    func testIFramePlaylist() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-VERSION:4
            #EXT-X-TARGETDURATION:10
            #EXT-X-MEDIA-SEQUENCE:0
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-I-FRAMES-ONLY
            #EXTINF:4.00000,
            #EXT-X-BYTERANGE:9400@376
            segment1.ts
            #EXTINF:3.50000,
            #EXT-X-BYTERANGE:7144@47000
            segment1.ts
            #EXTINF:2.50000,
            #EXT-X-BYTERANGE:10340@1880
            segment2.ts
            #EXT-X-ENDLIST
            """)
        XCTAssertTrue(playlist.iFramesOnly)
        XCTAssertEqual(playlist.segments.map(\.byteRange?.offset), [376, 47000, 1880])
        XCTAssertEqual(playlist.duration, 10)
    }
}
