// swift-tools-version:6.0
// An OpenAVFoundation example outside the package, depending on it by path as an app would: a GTK 4 app with the
// video in one pane of its own window (a GtkGLArea) and its own widgets around it, pulled with
// AVPlayerItemVideoOutput on GTK's frame clock and turned into textures with CVOpenGLESTextureCache.
import PackageDescription

let package = Package(
    name: "GTKGLPlayer",
    dependencies: [.package(name: "OpenAVFoundation", path: "../..")],
    targets: [
        // GTK 4 and OpenGL, through pkg-config (Debian: libgtk-4-dev, libgl-dev).
        .systemLibrary(name: "CGtk4", pkgConfig: "gtk4 gl"),
        .executableTarget(
            name: "GTKGLPlayer",
            dependencies: ["CGtk4", .product(name: "AVFoundation", package: "OpenAVFoundation")]),
    ],
    swiftLanguageModes: [.v6]
)
