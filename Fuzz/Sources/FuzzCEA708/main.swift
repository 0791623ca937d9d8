import Foundation
import FuzzSupport

@testable import AVFoundation
@testable import PlaybackEngine

/// Harness (e): the CEA-708 caption decoder. The input is a service number (its first byte, 1…63) and then pictures,
/// each a length byte and that many bytes of `cc_data` triplets (a partial triplet at the end is ignored by the
/// decoder), 1/30 s apart. ``CEA708Decoder`` decodes them into cues; every cue must end after it starts and be one
/// event line of the decoder's script, which is parsed as the legible output and the window do (`ASSEvent`, a few
/// attributed strings).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCEA708(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var decoder = CEA708Decoder(service: 1 + Int(bytes[0]) % 63)
    var cues: [SubtitleCue] = []
    var i = 1
    var picture: Int64 = 0
    while i < size {
        let length = min(Int(bytes[i]), size - i - 1)
        let triplets = Array(bytes[(i + 1)..<(i + 1 + length)])
        i += 1 + length
        cues += decoder.decode(triplets, at: CMTime(value: picture, timescale: 30))
        picture += 1
    }
    cues += decoder.finish()
    let script = ASSScript(header: CEA708Decoder.assHeader)
    for (n, cue) in cues.enumerated() {
        if let end = cue.end, end <= cue.start { fatalError("a cue ends at or before its start: \(cue)") }
        guard cue.regions.count == 1, case .ass(let line) = cue.regions[0],
            line.hasPrefix("0,0,Default,,0,0,0,,{\\an")
        else { fatalError("not one event line of the decoder's script: \(cue)") }
        _ = ASSEvent(line: line, script: script).plainText
        // Foundation leaks a little with each attributed string (Fuzz/lsan.supp): a few per input.
        if n < 4 { _ = AVPlayerItemLegibleOutput.attributedString(for: cue, script: script, rules: []) }
    }
    return 0
}

/// The executable's entry point (see `runFuzzer`).
@_cdecl("FuzzCEA708_main")
public func fuzzCEA708Main(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runFuzzer(argc, argv) { fuzzCEA708($0, $1) }
}
