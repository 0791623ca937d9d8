// A minimal player: plays a file or URL with sound, reports its status and the time, and exits at its end.
//
//     swift run MinimalPlayer movie.mp4 [SECONDS]
//
// SECONDS stops playback there (the item's forwardPlaybackEndTime). Without a sound card, run it with
// SDL_AUDIODRIVER=dummy.
import AVFoundation

let arguments = Array(CommandLine.arguments.dropFirst())
guard let input = arguments.first else {
    FileHandle.standardError.write(Data("usage: MinimalPlayer FILE|URL [SECONDS]\n".utf8))
    exit(2)
}
let url = input.contains("://") ? URL(string: input)! : URL(fileURLWithPath: input)
let player = AVPlayer(url: url)
let item = player.currentItem!
// The audio session and the patterns ported from iOS code (PortedPatterns.swift).
let reporter = PlaybackReporter(player: player)
reporter.start()
if let seconds = arguments.dropFirst().first.flatMap(Double.init) {
    item.forwardPlaybackEndTime = CMTime(seconds: seconds, preferredTimescale: 600)
}

// KVO in Apple's spelling; changes arrive on the main queue, as on Apple's systems (`.initial` at once).
let statusObservation = item.observe(\.status, options: [.initial, .new]) { item, _ in
    switch item.status {
    case .readyToPlay:
        print("ready to play: \(String(format: "%.2f", item.duration.seconds)) s")
    case .failed:
        print("failed: \(item.error?.localizedDescription ?? "unknown error")")
        exit(1)
    default:
        print("loading…")
    }
}
let halfSecond = CMTime(seconds: 0.5, preferredTimescale: CMTimeScale(NSEC_PER_SEC))
let timeObserver = player.addPeriodicTimeObserver(forInterval: halfSecond, queue: .main) { time in
    print(String(format: "%.1f s", time.seconds))
}
let endObserver = NotificationCenter.default.addObserver(
    forName: AVPlayerItem.didPlayToEndTimeNotification, object: item, queue: .main
) { _ in
    print("played to the end")
    exit(0)
}

player.play()  // plays as soon as the item is ready
dispatchMain()  // main-queue delivery needs the main queue running
