// swift-tools-version:6.0
// OpenAVFoundation: Apple's AVFoundation playback API for Linux, on FFmpeg.
import PackageDescription

let package = Package(
    name: "OpenAVFoundation",
    products: [
        .library(name: "AVFoundation", targets: ["AVFoundation"]),
        .library(name: "AVFAudio", targets: ["AVFAudio"]),
        .library(name: "CoreMedia", targets: ["CoreMedia"]),
        .library(name: "CoreVideo", targets: ["CoreVideo"]),
        .library(name: "CoreGraphics", targets: ["CoreGraphics"]),
        .library(name: "ImageIO", targets: ["ImageIO"]),
        .library(name: "CoreImage", targets: ["CoreImage"]),
        .library(name: "UniformTypeIdentifiers", targets: ["UniformTypeIdentifiers"]),
        .library(name: "AVKit", targets: ["AVKit"]),
        .executable(name: "avplay", targets: ["avplay"]),
    ],
    targets: [
        // C behind one door each (DESIGN.md "C behind a wall").
        // libavfilter's headers come with the others; the library itself is opened on first use (CFFmpegFilterLoader).
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat libavcodec libavutil libswscale libswresample",
            providers: [
                .apt([
                    "libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev",
                    "libswresample-dev", "libavfilter-dev",
                ])
            ]
        ),
        // SDL2's headers only (Debian: libsdl2-dev): the library is opened on first use (CSDL2Loader).
        .systemLibrary(name: "CSDL2"),
        .systemLibrary(name: "CRubberBand", pkgConfig: "rubberband", providers: [.apt(["librubberband-dev"])]),
        .systemLibrary(name: "CLibass", pkgConfig: "libass", providers: [.apt(["libass-dev"])]),

        // libavfilter and SDL2 each pull in 20-30 more libraries; instead of binding them at every process start
        // (a third of the dynamic loader's work), these define the functions called, hidden, and open the library on
        // the first call. No API of their own; nothing imports them.
        .target(name: "CFFmpegFilterLoader"),
        .target(name: "CSDL2Loader"),

        // Owning wrappers over every FFmpeg object; the only module that imports CFFmpeg.
        .target(name: "FFmpegBridge", dependencies: ["CFFmpeg", "CFFmpegFilterLoader", "CoreMedia", "CoreVideo"]),
        // Owning wrappers over Rubber Band's stretcher and libass's library, renderer and track; the only module that
        // imports CRubberBand and CLibass.
        .target(name: "NativeBridge", dependencies: ["CRubberBand", "CLibass"]),

        // The project's one lock (`ConditionLock`, and `Locked<Value>` over it), below every other Swift target; not a
        // product, and named so that it cannot collide with an Apple or app module.
        .target(name: "OAVFLocking"),

        // Apple-shaped value layers.
        .target(name: "CoreGraphics"),
        // Apple's layering: CoreMedia sits on CoreVideo (CMSampleBuffer carries CVImageBuffers).
        .target(name: "CoreVideo", dependencies: ["CoreGraphics", "OAVFLocking"]),
        .target(name: "CoreMedia", dependencies: ["CoreVideo", "OAVFLocking"]),
        // Writing stills (CGImageDestination: PNG, JPEG through FFmpeg's encoders) and the pixel-buffer-to-image path
        // apps write with Core Image (CIImage, CIContext on libswscale; no filter graph).
        .target(name: "ImageIO", dependencies: ["CoreGraphics", "FFmpegBridge", "OAVFLocking"]),
        .target(name: "CoreImage", dependencies: ["ImageIO", "CoreVideo", "FFmpegBridge"]),
        // Apple's `UTType`: identifiers, conformance and tags of the image, audio, video and text types (Foundation only).
        .target(name: "UniformTypeIdentifiers"),

        // The media engine (ffplay-style threads, serial-tagged queues, clock); `package` API only.
        .target(
            name: "PlaybackEngine",
            dependencies: ["FFmpegBridge", "NativeBridge", "CoreMedia", "CoreVideo", "OAVFLocking"]),

        // HTTP Live Streaming: playlist models and parser (pure, fed by strings), segment fetching, an HLS source behind
        // the engine's `MediaSource` seam. Depends on the engine, never the reverse.
        .target(name: "HLS", dependencies: ["PlaybackEngine", "FFmpegBridge", "CoreMedia", "OAVFLocking"]),

        // SDL2 audio device and (later) window presenter behind the engine's sink protocols.
        .target(name: "SDLOutput", dependencies: ["CSDL2", "CSDL2Loader", "PlaybackEngine", "OAVFLocking"]),

        // The public API.
        .target(
            name: "AVFoundation",
            dependencies: [
                "CoreMedia", "CoreVideo", "CoreGraphics", "PlaybackEngine", "HLS", "SDLOutput",
                "AVFoundationSubmodules", "OAVFLocking",
            ]),
        // A module map naming Apple's per-header submodules of AVFoundation (`import AVFoundation.AVPlayerItem`); no C.
        .systemLibrary(name: "AVFoundationSubmodules"),
        // `import AVFAudio`: re-exports AVFoundation, where AVAudioSession lives (see Sources/AVFAudio/AVFAudio.swift).
        .target(name: "AVFAudio", dependencies: ["AVFoundation"]),
        // `import AVKit`: re-exports AVFoundation; AVKit's UIKit/AppKit views are declared unavailable.
        .target(name: "AVKit", dependencies: ["AVFoundation"]),

        // Shared by every test target: fixtures, frame-index reader, tone analysis, the capturing audio sink and
        // playback dumps (which speak the engine's sink protocols, hence PlaybackEngine).
        .target(
            name: "TestSupport",
            dependencies: ["CoreMedia", "CoreVideo", "FFmpegBridge", "PlaybackEngine", "OAVFLocking"]),

        .executableTarget(name: "avplay", dependencies: ["AVFoundation", "OAVFLocking", "ImageIO"]),

        .testTarget(name: "CoreMediaTests", dependencies: ["CoreMedia", "OAVFLocking", "TestSupport"]),
        .testTarget(name: "CoreVideoTests", dependencies: ["CoreVideo", "OAVFLocking", "TestSupport"]),
        .testTarget(name: "FFmpegBridgeTests", dependencies: ["FFmpegBridge", "TestSupport"]),
        .testTarget(
            name: "TestSupportTests", dependencies: ["TestSupport", "FFmpegBridge", "CoreVideo", "OAVFLocking"]),
        // Golden/ holds the playback dumps' golden files, read through #filePath (not resources).
        .testTarget(
            name: "PlaybackEngineTests",
            dependencies: ["PlaybackEngine", "FFmpegBridge", "TestSupport", "OAVFLocking"],
            exclude: ["Golden"]),
        .testTarget(
            name: "SDLOutputTests", dependencies: ["SDLOutput", "PlaybackEngine", "TestSupport", "OAVFLocking"]),
        .testTarget(
            name: "HLSTests", dependencies: ["HLS", "PlaybackEngine", "FFmpegBridge", "TestSupport", "OAVFLocking"]),
        .testTarget(
            name: "AVFoundationTests",
            dependencies: ["AVFoundation", "AVFAudio", "AVKit", "TestSupport", "OAVFLocking"],
            // Inputs the fuzzers found (FuzzRegressionTests reads them by path).
            exclude: ["FuzzRegressions"]),
        .testTarget(name: "AvplayTests", dependencies: ["TestSupport", "avplay", "OAVFLocking"]),
        .testTarget(name: "ImageIOTests", dependencies: ["ImageIO", "CoreImage", "TestSupport", "FFmpegBridge"]),
        .testTarget(
            name: "UniformTypeIdentifiersTests",
            dependencies: ["UniformTypeIdentifiers", "ImageIO", "AVFoundation", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
