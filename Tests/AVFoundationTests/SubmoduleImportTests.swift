import AVFoundation.AVAudioSession
import AVFoundation.AVPlayer
import AVFoundation.AVPlayerItem
import XCTest

/// Clang-style submodule imports, as libraries write them per Apple header: this file imports AVFoundation only
/// through `AVFoundation.AVPlayerItem`, `AVFoundation.AVPlayer` and `AVFoundation.AVAudioSession`, and plays a real
/// file with what they bring.
final class SubmoduleImportTests: XCTestCase {
    func test_importAVFoundationDotAVPlayerItem_bringsTheModule() throws {
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        let player = AVPlayer(playerItem: item)
        waitUntil("ready") { item.status == .readyToPlay }
        // h264_aac.mp4 is 10 s (scripts/make-fixtures); a qualified type name still names the class, not the
        // submodule.
        let duration: CMTime = item.duration
        XCTAssertEqual(duration.seconds, 10, accuracy: 0.05)
        let same: AVFoundation.AVPlayerItem? = player.currentItem
        XCTAssertTrue(same === item)
        XCTAssertEqual(AVAudioSession.sharedInstance().availableCategories.count, 6)
    }
}
