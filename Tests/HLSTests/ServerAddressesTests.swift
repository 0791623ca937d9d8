import Foundation
import XCTest

@testable import HLS

/// The server addresses the access and error logs report: addresses kept, names resolved once.
final class ServerAddressesTests: XCTestCase {
    func test_addresses_areKept_andIPv6LosesItsBrackets() throws {
        let addresses = ServerAddresses()
        XCTAssertEqual(addresses.address(of: try XCTUnwrap(URL(string: "http://127.0.0.2:8080/a.ts"))), "127.0.0.2")
        XCTAssertEqual(addresses.address(of: try XCTUnwrap(URL(string: "http://[::1]:8080/a.ts"))), "::1")
        XCTAssertEqual(
            addresses.address(of: try XCTUnwrap(URL(string: "https://[2001:db8::7]/a.ts"))), "2001:db8::7")
        XCTAssertNil(addresses.address(of: URL(fileURLWithPath: "/tmp/a.ts")))
    }

    func test_aName_resolvesToANumericAddress_theSameEachTime() throws {
        let addresses = ServerAddresses()
        let url = try XCTUnwrap(URL(string: "http://localhost:8080/a.ts"))
        let first = try XCTUnwrap(addresses.address(of: url))
        XCTAssertTrue(ServerAddresses.isNumeric(first), first)
        XCTAssertTrue(["127.0.0.1", "::1"].contains(first), first)
        XCTAssertEqual(addresses.address(of: url), first)
        XCTAssertFalse(ServerAddresses.isNumeric("localhost"))
    }
}
