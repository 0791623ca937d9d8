// `AVAudioPlayer` used as an iOS app's sound class uses it, with the public API only (no `@testable`): this file
// compiling is half the test.
import AVFoundation
import Foundation
import TestSupport
import XCTest

/// An app's sound player, as written for Apple's SDK: main actor (the delegate protocol is), a strong reference to
/// the player, `try?` at creation, the delegate's optional methods.
@MainActor
private final class SoundEffect: NSObject, AVAudioPlayerDelegate {
    var player: AVAudioPlayer?
    var finished: [Bool] = []
    var levels: [Float] = []

    func load(_ url: URL) -> Bool {
        player = try? AVAudioPlayer(contentsOf: url, fileTypeHint: AVFileType.mp3.rawValue)
        player?.delegate = self
        player?.numberOfLoops = 1
        player?.volume = 0.8
        player?.isMeteringEnabled = true
        return player?.prepareToPlay() ?? false
    }

    func play() { player?.play() }

    func sample() {
        guard let player, player.isPlaying else { return }
        player.updateMeters()
        levels.append(player.peakPower(forChannel: 0))
    }

    func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) {
        finished.append(flag)
    }
}

/// Runs the app's pattern on the main actor (XCTest calls test methods on the main thread).
@MainActor
private func playSoundEffectTwice(_ url: URL) {
    let effect = SoundEffect()
    XCTAssertTrue(effect.load(url))
    XCTAssertEqual(effect.player?.duration ?? 0, 3, accuracy: 0.05)
    effect.play()
    // A timer sampling the meters every 50 ms (a UI's cadence: real time by design) while the run loop delivers the
    // delegate's call; only the hang guard bounds the wait.
    Poll.until(every: 0) {
        RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.05))
        effect.sample()
        return !effect.finished.isEmpty
    }
    XCTAssertEqual(effect.finished, [true], "one call, after both plays")
    XCTAssertEqual(effect.player?.isPlaying, false)
    XCTAssertEqual(effect.player?.currentTime, 0)
    // The MP3's tones are 0.5 (-6.02 dBFS) at full volume; 0.8 lowers them by 1.94 dB.
    let loud = effect.levels.filter { $0 > -60 }
    XCTAssertFalse(loud.isEmpty, "the meters saw the sound")
    XCTAssertEqual(Double(loud.max() ?? 0), -6.02 - 1.94, accuracy: 1)
}

final class AVAudioPlayerAppCodeTests: XCTestCase {
    /// Real time through SDL's `dummy` driver (a device that consumes audio at its rate and plays nothing): two
    /// plays of a 3 s MP3.
    func test_realTime_dummyDriver_appSoundEffect_playsTwiceAndFinishesOnce() throws {
        let url = try Fixtures.url(.audioMP3)
        setenv("SDL_AUDIODRIVER", "dummy", 1)
        defer { unsetenv("SDL_AUDIODRIVER") }
        MainActor.assumeIsolated { playSoundEffectTwice(url) }
    }
}
