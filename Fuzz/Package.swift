// swift-tools-version:6.0
// libFuzzer harnesses for OpenAVFoundation (`make fuzz`; see README "Fuzzing"). A package of its own, so the
// fuzzer's instrumentation (`-sanitize=fuzzer,address`, passed by the Makefile) never reaches the main build.
import PackageDescription

let package = Package(
    name: "OpenAVFoundationFuzz",
    dependencies: [.package(name: "OpenAVFoundation", path: "..")],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [.product(name: "AVFoundation", package: "OpenAVFoundation")]),
        // libFuzzer supplies `main`: the harnesses are parsed as libraries and export LLVMFuzzerTestOneInput.
        .executableTarget(
            name: "FuzzOpenProbe", dependencies: ["FuzzSupport"],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(
            name: "FuzzDemuxDecodeSeek", dependencies: ["FuzzSupport"],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        // These three reach the package-level parser and subtitle code with `@testable import` (the modules are not
        // products; a debug build, what `make fuzz` makes, compiles them with testing enabled).
        .executableTarget(
            name: "FuzzHLSParser", dependencies: ["FuzzSupport"],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(
            name: "FuzzSubtitles", dependencies: ["FuzzSupport"],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
        .executableTarget(
            name: "FuzzCEA708", dependencies: ["FuzzSupport"],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
    ]
)
