// swift-tools-version:6.0
// An OpenAVFoundation example outside the package, depending on it by path as an app would.
import PackageDescription

let package = Package(
    name: "Thumbnailer",
    dependencies: [.package(name: "OpenAVFoundation", path: "../..")],
    targets: [
        .executableTarget(
            name: "Thumbnailer",
            dependencies: [.product(name: "AVFoundation", package: "OpenAVFoundation")]),
        // The server-style one: AVAssetImageGenerator and ImageIO's CGImageDestination, as an iOS app writes them.
        .executableTarget(
            name: "ServerThumbnailer",
            dependencies: [
                .product(name: "AVFoundation", package: "OpenAVFoundation"),
                .product(name: "ImageIO", package: "OpenAVFoundation"),
                .product(name: "UniformTypeIdentifiers", package: "OpenAVFoundation"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
