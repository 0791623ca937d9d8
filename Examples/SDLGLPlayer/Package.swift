// swift-tools-version:6.0
// An OpenAVFoundation example outside the package, depending on it by path as an app would: an SDL2 + OpenGL app
// that draws its own interface and the video inside it, pulled with AVPlayerItemVideoOutput on a CADisplayLink and
// turned into textures with CVOpenGLESTextureCache.
import PackageDescription

let package = Package(
    name: "SDLGLPlayer",
    dependencies: [.package(name: "OpenAVFoundation", path: "../..")],
    targets: [
        // SDL2 and OpenGL, through pkg-config (Debian: libsdl2-dev, libgl-dev).
        .systemLibrary(name: "CSDL2GL", pkgConfig: "sdl2 gl"),
        .executableTarget(
            name: "SDLGLPlayer",
            dependencies: ["CSDL2GL", .product(name: "AVFoundation", package: "OpenAVFoundation")]),
    ],
    swiftLanguageModes: [.v6]
)
