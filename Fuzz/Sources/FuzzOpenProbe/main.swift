import Foundation
import FuzzSupport

@testable import AVFoundation

/// Harness (a): open and probe. The input is loaded as an `AVURLAsset` and every asset key, every track key and the
/// media selection groups are loaded; loading must finish (with values or an `AVError`) within 30 s.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOpenProbe(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let file = MemoryFile(UnsafeBufferPointer(start: data, count: size)) else { return 0 }
    let done = Box(false)
    let url = file.url
    Task.detached {
        let asset = AVURLAsset(url: url)
        if let (_, tracks, _, _, _) = try? await asset.load(
            .duration, .tracks, .isPlayable, .metadata, .availableMediaCharacteristicsWithMediaSelectionOptions)
        {
            for track in tracks {
                _ = try? await track.load(
                    .naturalSize, .preferredTransform, .nominalFrameRate, .formatDescriptions, .isPlayable,
                    .languageCode, .timeRange)
            }
            for characteristic in [AVMediaCharacteristic.audible, .legible, .visual] {
                _ = try? await asset.loadMediaSelectionGroup(for: characteristic)
            }
        }
        done.value = true
    }
    withExtendedLifetime(file) {
        waitOrTrap("loading the asset", seconds: 30) { done.value }
        // Loads still running (a track's, a cancelled probe returning) end before the input does (see
        // FuzzDemuxDecodeSeek).
        AssetLoader.queue.sync(flags: .barrier) {}
    }
    return 0
}

/// The executable's entry point (see `runFuzzer`).
@_cdecl("FuzzOpenProbe_main")
public func fuzzOpenProbeMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runFuzzer(argc, argv) { fuzzOpenProbe($0, $1) }
}
