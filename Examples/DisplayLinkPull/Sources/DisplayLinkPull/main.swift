// Apple's display-link pull sample (AVPlayerItemOutput.h) as a complete program: a CVDisplayLink calls back once
// per refresh, asks the AVPlayerItemVideoOutput for the picture due at the next refresh, and goes quiescent when
// nothing new comes (paused, or at the end) until `outputMediaDataWillChange` restarts it.
//
//     swift run DisplayLinkPull movie.mp4 [SECONDS]
//
// Plays in real time with sound (SDL_AUDIODRIVER=dummy without a sound card), pauses for a second half-way so the
// link goes quiescent and is woken again, and prints what it pulled.
import AVFoundation

/// The sample's NON_QUIESCENT_PERIOD_IN_SECONDS: how long without a new picture before the link stops.
let nonQuiescentPeriod = 0.25
/// The sample's MY_STARTUP_TIME_IN_SECONDS: how long before new pictures the delegate is told.
let startupTime = 0.03

/// The sample's `MYObject`: owns the output and the link, and is the output's pull delegate.
final class PictureSink: AVPlayerItemOutputPullDelegate, @unchecked Sendable {
    let videoOutput = AVPlayerItemVideoOutput(pixelBufferAttributes: [
        kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA
    ])
    let delegateQueue = DispatchQueue(label: "display-link-pull.delegate")
    var displayLink: CVDisplayLink!
    /// Guards the counters and `lastHostTime`, which the link's thread and the delegate queue share.
    private let lock = NSLock()
    private var lastHostTime: UInt64 = 0
    private(set) var pictures = 0
    private(set) var quiescences = 0
    private(set) var restarts = 0

    var myLastHostTime: UInt64 {
        get { lock.withLock { lastHostTime } }
        set { lock.withLock { lastHostTime = newValue } }
    }
    func counted<T>(_ body: (PictureSink) -> T) -> T { lock.withLock { body(self) } }
    func addPicture() { lock.withLock { pictures += 1 } }
    func addQuiescence() { lock.withLock { quiescences += 1 } }

    func outputMediaDataWillChange(_ sender: AVPlayerItemOutput) {
        // Start running again.
        myLastHostTime = CVGetCurrentHostTime()
        if CVDisplayLinkStart(displayLink) == kCVReturnSuccess { lock.withLock { restarts += 1 } }
    }
}

func myDisplayCallback(
    _ displayLink: CVDisplayLink, _ inNow: UnsafePointer<CVTimeStamp>, _ inOutputTime: UnsafePointer<CVTimeStamp>,
    _ flagsIn: CVOptionFlags, _ flagsOut: UnsafeMutablePointer<CVOptionFlags>,
    _ displayLinkContext: UnsafeMutableRawPointer?
) -> CVReturn {
    let sink = Unmanaged<PictureSink>.fromOpaque(displayLinkContext!).takeUnretainedValue()
    let outputItemTime = sink.videoOutput.itemTime(for: inOutputTime.pointee)
    if sink.videoOutput.hasNewPixelBuffer(forItemTime: outputItemTime) {
        var presentationItemTime = CMTime.zero
        sink.myLastHostTime = inOutputTime.pointee.hostTime
        let pixBuff = sink.videoOutput.copyPixelBuffer(
            forItemTime: outputItemTime, itemTimeForDisplay: &presentationItemTime)
        // Use pixBuff here: presentationItemTime is the item time appropriate for the next screen refresh.
        if pixBuff != nil { sink.addPicture() }
    } else {
        let now = inNow.pointee.hostTime
        let last = sink.myLastHostTime
        let elapsedTime = CMClockMakeHostTimeFromSystemUnits(now > last ? now - last : 0)
        if CMTimeGetSeconds(elapsedTime) > nonQuiescentPeriod {
            // Stopped before asking (the sample asks first), so a notice that comes at once restarts a stopped
            // link instead of racing the stop.
            CVDisplayLinkStop(displayLink)
            sink.addQuiescence()
            sink.videoOutput.requestNotificationOfMediaDataChange(withAdvanceInterval: startupTime)
        }
    }
    return kCVReturnSuccess
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let input = arguments.first else {
    FileHandle.standardError.write(Data("usage: DisplayLinkPull FILE|URL [SECONDS]\n".utf8))
    exit(2)
}
let url = input.contains("://") ? URL(string: input)! : URL(fileURLWithPath: input)
let sink = PictureSink()
var created: CVDisplayLink?
guard CVDisplayLinkCreateWithActiveCGDisplays(&created) == kCVReturnSuccess, let link = created else {
    FileHandle.standardError.write(Data("DisplayLinkPull: no display link\n".utf8))
    exit(1)
}
sink.displayLink = link
CVDisplayLinkSetOutputCallback(sink.displayLink, myDisplayCallback, Unmanaged.passUnretained(sink).toOpaque())

let item = AVPlayerItem(url: url)
item.add(sink.videoOutput)
sink.videoOutput.setDelegate(sink, queue: sink.delegateQueue)
if let seconds = arguments.dropFirst().first.flatMap(Double.init) {
    item.forwardPlaybackEndTime = CMTime(seconds: seconds, preferredTimescale: 600)
}
let player = AVPlayer(playerItem: item)

let status = item.observe(\.status, options: [.new]) { item, _ in
    if item.status == .failed {
        print("failed: \(item.error?.localizedDescription ?? "unknown error")")
        exit(1)
    }
    guard item.status == .readyToPlay else { return }
    let end = item.forwardPlaybackEndTime.isNumeric ? item.forwardPlaybackEndTime : item.duration
    print(String(format: "ready: playing %.2f s with a 60 Hz display link", end.seconds))
    // Pause for a second half-way: the link finds nothing new, stops, and is woken when playback resumes.
    let halfWay = NSValue(time: CMTimeMultiplyByRatio(end, multiplier: 1, divisor: 2))
    pauseObserver = player.addBoundaryTimeObserver(forTimes: [halfWay], queue: .main) {
        MainActor.assumeIsolated {
            player.pause()
            print(String(format: "paused at %.2f s", player.currentTime().seconds))
        }
        DispatchQueue.main.asyncAfter(deadline: .now() + 1) {
            MainActor.assumeIsolated { player.play() }
        }
    }
    sink.myLastHostTime = CVGetCurrentHostTime()
    CVDisplayLinkStart(sink.displayLink)
    player.play()
}
nonisolated(unsafe) var pauseObserver: Any?
let end = NotificationCenter.default.addObserver(
    forName: AVPlayerItem.didPlayToEndTimeNotification, object: item, queue: .main
) { _ in
    // Let the link notice that nothing new comes, then report.
    DispatchQueue.main.asyncAfter(deadline: .now() + 0.5) {
        CVDisplayLinkStop(sink.displayLink)
        let (pictures, quiescences, restarts) = sink.counted { ($0.pictures, $0.quiescences, $0.restarts) }
        print(
            "pulled \(pictures) pictures; the link went quiescent \(quiescences) times and was restarted \(restarts) times"
        )
        exit(0)
    }
}
dispatchMain()
