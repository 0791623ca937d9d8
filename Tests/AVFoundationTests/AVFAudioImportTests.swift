import AVFAudio
import XCTest

/// `import AVFAudio` alone, as code that uses only the audio session writes it.
final class AVFAudioImportTests: XCTestCase {
    func test_importAVFAudio_bringsAVAudioSession() throws {
        let session = AVAudioSession.sharedInstance()
        let previous = session.category
        defer { try? session.setCategory(previous) }
        try session.setCategory(.ambient, options: [.mixWithOthers])
        XCTAssertEqual(session.category, .ambient)
        XCTAssertEqual(session.categoryOptions, .mixWithOthers)
        XCTAssertEqual(AVAudioSession.ErrorCode.isBusy.rawValue, 560_030_580, "'!act'")
    }
}
