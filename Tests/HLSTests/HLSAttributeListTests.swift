import Foundation
import HLS
import XCTest

/// The attribute-list tokenizer and its typed values (RFC 8216 section 4.2).
final class HLSAttributeListTests: XCTestCase {
    private func list(_ text: String) throws(HLSPlaylistError) -> HLSAttributeList {
        try HLSAttributeList(parsing: text, tag: "EXT-X-TEST", line: 7)
    }

    private func assertMalformed(
        _ text: String, mentioning: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        do {
            _ = try list(text)
            XCTFail("\(text) tokenized", file: file, line: line)
        } catch {
            XCTAssertEqual(error.code, .invalidAttribute, file: file, line: line)
            XCTAssertEqual(error.line, 7, file: file, line: line)
            XCTAssertTrue(error.message.hasPrefix("#EXT-X-TEST: "), error.message, file: file, line: line)
            XCTAssertTrue(error.message.contains(mentioning), error.message, file: file, line: line)
        }
    }

    func testQuotedStringsKeepCommasAndEquals() throws {
        let attributes = try list(#"CODECS="avc1.64001f,mp4a.40.2",URI="key?a=1&b=2,c",NAME="""#)
        XCTAssertEqual(attributes.attributes.map(\.name), ["CODECS", "URI", "NAME"])
        XCTAssertEqual(try attributes.quotedString("CODECS"), "avc1.64001f,mp4a.40.2")
        XCTAssertEqual(try attributes.quotedString("URI"), "key?a=1&b=2,c")
        XCTAssertEqual(try attributes.quotedString("NAME"), "")
        XCTAssertNil(try attributes.quotedString("LANGUAGE"))
    }

    func testDecimalIntegers() throws {
        let attributes = try list("BANDWIDTH=1280000,ZERO=0,MAX=9223372036854775807,BIG=9223372036854775808")
        XCTAssertEqual(try attributes.decimalInteger("BANDWIDTH"), 1_280_000)
        XCTAssertEqual(try attributes.decimalInteger("ZERO"), 0)
        XCTAssertEqual(try attributes.decimalInteger("MAX"), Int.max)
        XCTAssertThrowsError(try attributes.decimalInteger("BIG")) { XCTAssertTrue("\($0)".contains("BIG")) }
        for bad in ["-5", "12.5", "1e6", "0x10", "abc", "+3"] {
            XCTAssertThrowsError(try list("BANDWIDTH=\(bad)").decimalInteger("BANDWIDTH"), bad)
        }
        XCTAssertThrowsError(try list(#"BANDWIDTH="100""#).decimalInteger("BANDWIDTH"))
    }

    func testFloatsAndSignedFloats() throws {
        let attributes = try list("FRAME-RATE=29.970,WHOLE=25,OFFSET=-12.5,POSITIVE=3.25")
        XCTAssertEqual(try attributes.decimalFloat("FRAME-RATE"), 29.97)
        XCTAssertEqual(try attributes.decimalFloat("WHOLE"), 25)
        XCTAssertEqual(try attributes.signedDecimalFloat("OFFSET"), -12.5)
        XCTAssertEqual(try attributes.signedDecimalFloat("POSITIVE"), 3.25)
        XCTAssertThrowsError(try attributes.decimalFloat("OFFSET"))  // unsigned refuses a sign
        for bad in ["nan", "inf", "1e3", "1.2.3", ".", "-", "--1", "1,5"] {
            XCTAssertNil(HLSAttributeList.decimalFloat(bad, signed: true), bad)
        }
        XCTAssertEqual(HLSAttributeList.decimalFloat(".5", signed: false), 0.5)
        // 400 digits overflow a Double to infinity; the grammar allows them, the value is refused.
        XCTAssertNil(HLSAttributeList.decimalFloat(String(repeating: "9", count: 400), signed: false))
    }

    func testHexadecimalSequences() throws {
        let attributes = try list("IV=0x0123456789abcdefFEDCBA9876543210,ODD=0X123,ONE=0x1")
        XCTAssertEqual(
            try attributes.hexadecimal("IV"),
            [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0xFE, 0xDC, 0xBA, 0x98, 0x76, 0x54, 0x32, 0x10])
        XCTAssertEqual(try attributes.hexadecimal("ODD"), [0x01, 0x23])
        XCTAssertEqual(try attributes.hexadecimal("ONE"), [0x01])
        for bad in ["0x", "0xZZ", "123", "x12", "0x12 34"] {
            XCTAssertNil(HLSAttributeList.hexadecimal(bad), bad)
        }
    }

    func testResolutionsAndEnumeratedStrings() throws {
        let attributes = try list("RESOLUTION=1920x1080,TYPE=AUDIO,DEFAULT=YES,FORCED=NO,CC=NONE,Q=\"YES\"")
        XCTAssertEqual(try attributes.resolution("RESOLUTION"), HLSResolution(width: 1920, height: 1080))
        XCTAssertEqual(try attributes.enumeratedString("TYPE"), "AUDIO")
        XCTAssertEqual(try attributes.boolean("DEFAULT"), true)
        XCTAssertEqual(try attributes.boolean("FORCED"), false)
        XCTAssertEqual(try attributes.boolean("Q"), true)  // tolerated in quotes
        XCTAssertThrowsError(try attributes.boolean("CC"))  // NONE is not YES/NO
        for bad in ["1920", "1920x", "x1080", "1920x-1", "19.5x10", "1920X1080x3"] {
            XCTAssertThrowsError(try list("RESOLUTION=\(bad)").resolution("RESOLUTION"), bad)
        }
    }

    func testInferredValuesForClientAttributes() throws {
        let attributes = try list(#"X-STR="a,b",X-HEX=0xAB01,X-NUM=-2.5,X-ENUM=ON"#)
        XCTAssertEqual(try attributes.inferredValue("X-STR"), .string("a,b"))
        XCTAssertEqual(try attributes.inferredValue("X-HEX"), .hexadecimal([0xAB, 0x01]))
        XCTAssertEqual(try attributes.inferredValue("X-NUM"), .number(-2.5))
        XCTAssertEqual(try attributes.inferredValue("X-ENUM"), .enumerated("ON"))
        XCTAssertThrowsError(try list("X-HEX=0xZZ").inferredValue("X-HEX"))
    }

    func testBlanksAndTrailingCommaAreTolerated() throws {
        let attributes = try list(#" BANDWIDTH = 500 , CODECS= "mp4a.40.2" ,"#)
        XCTAssertEqual(try attributes.decimalInteger("BANDWIDTH"), 500)
        XCTAssertEqual(try attributes.quotedString("CODECS"), "mp4a.40.2")
        XCTAssertEqual(try list("").attributes, [])
    }

    func testMalformedListsAreRefusedWithTheirLine() {
        assertMalformed("BANDWIDTH=1,BANDWIDTH=2", mentioning: "BANDWIDTH appears twice")
        assertMalformed("BANDWIDTH", mentioning: "BANDWIDTH has no value")
        assertMalformed("BANDWIDTH=,CODECS=\"a\"", mentioning: "BANDWIDTH has an empty value")
        assertMalformed(#"URI="unterminated,BANDWIDTH=1"#, mentioning: "unterminated")
        assertMalformed(#"URI="a"b,X=1"#, mentioning: "text after its closing quote")
        assertMalformed(#"NAME=ab"c""#, mentioning: "stray quote")
        assertMalformed("=5", mentioning: "malformed attribute name")
        assertMalformed("bandwidth=5", mentioning: "malformed attribute name \"bandwidth\"")
        assertMalformed("BAND WIDTH=5", mentioning: "malformed attribute name")
        assertMalformed("A=1,,B=2", mentioning: "malformed attribute name")
    }

    func testTypeMismatchesNameTheAttribute() throws {
        let attributes = try list(#"URI=plain,BANDWIDTH="1""#)
        XCTAssertThrowsError(try attributes.quotedString("URI")) { error in
            XCTAssertEqual((error as? HLSPlaylistError)?.code, .invalidAttribute)
            XCTAssertTrue("\(error)".contains("line 7: #EXT-X-TEST: URI=plain must be a quoted string"), "\(error)")
        }
        XCTAssertThrowsError(try attributes.decimalInteger("BANDWIDTH"))
        XCTAssertThrowsError(try attributes.require(attributes.quotedString("ID"), "ID")) { error in
            XCTAssertTrue("\(error)".contains("required attribute ID is missing"), "\(error)")
        }
    }
}
