import AVKit
import TestSupport
import XCTest

/// Player code that imports AVKit for AVFoundation's names alone (Vimeo's PlayerKit does) compiles with that import
/// and plays: on Apple's systems `import AVKit` brings AVFoundation.
final class AVKitImportTests: XCTestCase {
    func test_importAVKit_bringsAVFoundation() async throws {
        let player = AVPlayer(playerItem: AVPlayerItem(url: try fixture(.h264AAC)))
        let item = try XCTUnwrap(player.currentItem)
        waitUntil("ready") { item.status == .readyToPlay }
        let duration = try await AVURLAsset(url: try fixture(.h264AAC)).load(.duration)
        XCTAssertEqual(item.duration, duration)
        let time: CMTime = CMTime(seconds: 0.5, preferredTimescale: CMTimeScale(NSEC_PER_SEC))
        XCTAssertEqual(time.seconds, 0.5)
    }
}
