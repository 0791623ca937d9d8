import Foundation
import FuzzSupport

@testable import AVFoundation
@testable import FFmpegBridge
@testable import PlaybackEngine

/// Harness (d): text subtitles. The input is read through a custom `AVIOContext` by libavformat's text subtitle
/// demuxers only (SubRip, WebVTT, ASS/SSA and the other line-based formats, a `format_whitelist`), then the
/// engine's ``SubtitleTrackReader`` decodes its stream with libavcodec into a ``SubtitleCueStore``, on its own thread,
/// as for an item. Then what a legible output does with the cues: the ASS header parsed into a script, and what is
/// shown at each cue start and end, both directions, built into attributed strings with Core Media's text-markup
/// attributes. Reading must finish within a bound (else: a hang).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSubtitles(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let source = ReaderSource(reader: MemoryReader(UnsafeBufferPointer(start: data, count: size)))
    guard (try? source.open()) != nil,
        let index = source.info.streams.first(where: { $0.kind == .subtitle })?.index
    else { return 0 }
    let reader = SubtitleTrackReader(source: source, streamIndex: index, timeOrigin: .zero)
    let store = reader.store
    // The store tells its observers when it finishes: no polling (which would cost more than most inputs).
    let finished = DispatchSemaphore(value: 0)
    store.addObserver { [weak store] in if store?.isComplete ?? true { finished.signal() } }
    reader.start()
    if finished.wait(timeout: .now() + 30) == .timedOut {
        fatalError("hang: the subtitle stream was not read to its end within 30 s")
    }
    reader.stop()

    let script = store.assHeader.map(ASSScript.init(header:)) ?? ASSScript()
    let rules = [AVTextStyleRule(textMarkupAttributes: [kCMTextMarkupAttribute_ItalicStyle: true])].compactMap { $0 }
    // What the legible feed asks the store at each change, forwards then backwards, and the cues it would deliver
    // as attributed strings. Bounded, so an input of thousands of cues costs milliseconds; and the attributed
    // strings to a few per input, because Foundation leaks a few hundred bytes with each (see Fuzz/lsan.supp), which
    // over 10⁶ inputs would exhaust memory.
    var attributed = 0
    func deliver(_ cues: [SubtitleCue]) {
        for cue in cues {
            for case .ass(let line) in cue.regions { _ = ASSEvent(line: line, script: script).plainText }
            guard attributed < 8 else { continue }
            attributed += 1
            _ = AVPlayerItemLegibleOutput.attributedString(for: cue, script: script, rules: attributed > 4 ? rules : [])
        }
    }
    for t in store.changes(after: .negativeInfinity, through: .positiveInfinity).prefix(64) {
        deliver(store.shown(at: t))
    }
    for t in store.changes(before: .positiveInfinity, downTo: .negativeInfinity).prefix(64) {
        deliver(store.shown(justBefore: t))
    }
    for cue in store.allCues.prefix(256) {
        if let end = cue.end, end <= cue.start { fatalError("a cue ends at or before its start: \(cue)") }
    }
    return 0
}

/// The executable's entry point (see `runFuzzer`).
@_cdecl("FuzzSubtitles_main")
public func fuzzSubtitlesMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runFuzzer(argc, argv) { fuzzSubtitles($0, $1) }
}
