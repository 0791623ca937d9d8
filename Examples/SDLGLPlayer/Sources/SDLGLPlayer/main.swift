// An SDL2 + OpenGL app that draws its own interface (a title bar, a border) and the video inside it: a CADisplayLink
// on the main run loop pulls pictures from an AVPlayerItemVideoOutput (Apple's default bi-planar 420v), turns each
// plane into a texture with CVOpenGLESTextureCache in the app's own GL context, and a small shader converts YCbCr to
// RGB with the matrix the buffer's attachment names. The player never calls into the drawing.
//
//     swift run SDLGLPlayer movie.mp4                 play in a window until the end (Esc or closing quits)
//     swift run SDLGLPlayer movie.mp4 --check 2.5     seek to 2.5 s, draw, read the frame index back from the
//                                                     framebuffer (glReadPixels), play a second, pause, check again
//
//     swift run SDLGLPlayer movie.mp4 --bench 20      play 20 s, then print how many ticks a second the loop held
//                                                     and what one pull + texture upload cost (median, p99)
//
// --check reads the index the fixture pictures carry (16 bands across the top eighth, band i white when bit i is set)
// from the window's pixels, and checks the bar, the border and the background are the app's colours. It prints
// what it read and exits 1 on any mismatch. Under Xvfb it runs on Mesa's software GL.
import AVFoundation
import CSDL2GL
import Foundation

// MARK: Layout (top-left origin, pixels)

let windowWidth: Int32 = 480
let windowHeight: Int32 = 400
/// The app's title bar across the top.
let barHeight: Int32 = 40
/// Where the video goes, and the border around it.
let videoRect = (x: Int32(40), y: Int32(70), width: Int32(400), height: Int32(300))
let borderWidth: Int32 = 4
let barColor: (Float, Float, Float) = (0.1, 0.2, 0.6)
let borderColor: (Float, Float, Float) = (1.0, 0.5, 0.0)
let backgroundColor: (Float, Float, Float) = (0.2, 0.2, 0.2)

// MARK: Arguments

let arguments = CommandLine.arguments.dropFirst()
guard let path = arguments.first else {
    print("usage: SDLGLPlayer FILE [--check SECONDS]")
    exit(2)
}
let benchSeconds: Double? = {
    guard let i = arguments.firstIndex(of: "--bench"), i + 1 < arguments.endIndex else { return nil }
    return Double(arguments[i + 1])
}()
let checkTime: Double? = {
    guard let i = arguments.firstIndex(of: "--check"), i + 1 < arguments.endIndex else { return nil }
    return Double(arguments[i + 1])
}()

// MARK: Window and GL context (the app's own)

guard SDL_Init(UInt32(SDL_INIT_VIDEO)) == 0 else {
    print("SDL_Init: \(String(cString: SDL_GetError()))")
    exit(1)
}
SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 2)
SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 1)
SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1)
let undefinedPosition = Int32(bitPattern: 0x1FFF_0000)  // SDL_WINDOWPOS_UNDEFINED
guard
    let window = SDL_CreateWindow(
        "SDLGLPlayer", undefinedPosition, undefinedPosition, windowWidth, windowHeight,
        SDL_WINDOW_OPENGL.rawValue | SDL_WINDOW_SHOWN.rawValue),
    let glContext = SDL_GL_CreateContext(window)
else {
    print("no OpenGL window: \(String(cString: SDL_GetError()))")
    exit(1)
}
SDL_GL_MakeCurrent(window, glContext)
SDL_GL_SetSwapInterval(1)
print("GL: \(String(cString: glGetString(GLenum(GL_RENDERER))))")

// MARK: The YCbCr shader

let vertexSource = """
    #version 120
    attribute vec2 position;
    attribute vec2 texcoord;
    varying vec2 uv;
    void main() { uv = texcoord; gl_Position = vec4(position, 0.0, 1.0); }
    """
let fragmentSource = """
    #version 120
    uniform sampler2D luma;
    uniform sampler2D chroma;
    uniform mat3 matrix;
    uniform vec3 offset;
    varying vec2 uv;
    void main() {
        vec3 ycbcr = vec3(texture2D(luma, uv).r, texture2D(chroma, uv).rg) - offset;
        gl_FragColor = vec4(clamp(matrix * ycbcr, 0.0, 1.0), 1.0);
    }
    """

func compile(_ type: Int32, _ source: String) -> GLuint {
    let shader = glCreateShader(GLenum(type))
    source.withCString { text in
        var pointer: UnsafePointer<GLchar>? = text
        glShaderSource(shader, 1, &pointer, nil)
    }
    glCompileShader(shader)
    var ok: GLint = 0
    glGetShaderiv(shader, GLenum(GL_COMPILE_STATUS), &ok)
    if ok == 0 {
        var log = [GLchar](repeating: 0, count: 1024)
        glGetShaderInfoLog(shader, 1024, nil, &log)
        print("shader: \(String(decoding: log.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        exit(1)
    }
    return shader
}

let program = glCreateProgram()
glAttachShader(program, compile(GL_VERTEX_SHADER, vertexSource))
glAttachShader(program, compile(GL_FRAGMENT_SHADER, fragmentSource))
glBindAttribLocation(program, 0, "position")
glBindAttribLocation(program, 1, "texcoord")
glLinkProgram(program)

/// Video-range YCbCr to RGB for a matrix attachment (BT.709, else BT.601), column-major for `glUniformMatrix3fv`.
func conversion(for matrixName: String?) -> (matrix: [GLfloat], offset: [GLfloat]) {
    let (kr, kb): (Float, Float) =
        matrixName == kCVImageBufferYCbCrMatrix_ITU_R_709_2 ? (0.2126, 0.0722) : (0.299, 0.114)
    let kg = 1 - kr - kb
    let y: Float = 255 / 219
    let c: Float = 255 / 224
    let crR = 2 * (1 - kr) * c
    let cbB = 2 * (1 - kb) * c
    let cbG = -2 * (1 - kb) * kb / kg * c
    let crG = -2 * (1 - kr) * kr / kg * c
    // Columns: Y, Cb, Cr.
    return ([y, y, y, 0, cbG, cbB, crR, crG, 0], [16 / 255, 128 / 255, 128 / 255])
}

// MARK: Player, output, texture cache

let player = AVPlayer()
let item = AVPlayerItem(url: URL(fileURLWithPath: path))
let output = AVPlayerItemVideoOutput(pixelBufferAttributes: nil)
item.add(output)
player.replaceCurrentItem(with: item)

var textureCache: CVOpenGLESTextureCache?
guard
    CVOpenGLESTextureCacheCreate(kCFAllocatorDefault, nil, CGLGetCurrentContext(), nil, &textureCache)
        == kCVReturnSuccess, let textureCache
else {
    print("no texture cache")
    exit(1)
}

/// The picture on screen: its planes as textures, its conversion and its item time.
var current: (luma: CVOpenGLESTexture, chroma: CVOpenGLESTexture, matrix: String?, time: CMTime)?

/// Turns `buffer` (bi-planar 4:2:0) into the current textures.
@MainActor
func show(_ buffer: CVPixelBuffer, at time: CMTime) {
    var luma: CVOpenGLESTexture?
    var chroma: CVOpenGLESTexture?
    let width = Int32(CVPixelBufferGetWidth(buffer))
    let height = Int32(CVPixelBufferGetHeight(buffer))
    let planeCount = CVPixelBufferGetPlaneCount(buffer)
    guard planeCount == 2,
        CVOpenGLESTextureCacheCreateTextureFromImage(
            kCFAllocatorDefault, textureCache, buffer, nil, GLenum(GL_TEXTURE_2D), GL_R8, width, height,
            GLenum(GL_RED), GLenum(GL_UNSIGNED_BYTE), 0, &luma) == kCVReturnSuccess,
        CVOpenGLESTextureCacheCreateTextureFromImage(
            kCFAllocatorDefault, textureCache, buffer, nil, GLenum(GL_TEXTURE_2D), GL_RG8, width / 2, height / 2,
            GLenum(GL_RG), GLenum(GL_UNSIGNED_BYTE), 1, &chroma) == kCVReturnSuccess,
        let luma, let chroma
    else {
        print("cannot make textures of a \(planeCount)-plane buffer")
        return
    }
    let matrix = CVBufferCopyAttachment(buffer, kCVImageBufferYCbCrMatrixKey, nil) as? String
    current = (luma, chroma, matrix, time)
}

// MARK: Drawing

func fill(_ x: Int32, _ y: Int32, _ width: Int32, _ height: Int32, _ color: (Float, Float, Float)) {
    glScissor(x, windowHeight - y - height, width, height)
    glClearColor(color.0, color.1, color.2, 1)
    glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
}

@MainActor
func draw() {
    glViewport(0, 0, windowWidth, windowHeight)
    glEnable(GLenum(GL_SCISSOR_TEST))
    fill(0, 0, windowWidth, windowHeight, backgroundColor)
    fill(0, 0, windowWidth, barHeight, barColor)
    fill(
        videoRect.x - borderWidth, videoRect.y - borderWidth, videoRect.width + 2 * borderWidth,
        videoRect.height + 2 * borderWidth, borderColor)
    fill(videoRect.x, videoRect.y, videoRect.width, videoRect.height, (0, 0, 0))
    glDisable(GLenum(GL_SCISSOR_TEST))
    guard let current else { return }
    glViewport(videoRect.x, windowHeight - videoRect.y - videoRect.height, videoRect.width, videoRect.height)
    glUseProgram(program)
    glActiveTexture(GLenum(GL_TEXTURE0))
    glBindTexture(GLenum(GL_TEXTURE_2D), CVOpenGLESTextureGetName(current.luma))
    glActiveTexture(GLenum(GL_TEXTURE1))
    glBindTexture(GLenum(GL_TEXTURE_2D), CVOpenGLESTextureGetName(current.chroma))
    glActiveTexture(GLenum(GL_TEXTURE0))
    glUniform1i(glGetUniformLocation(program, "luma"), 0)
    glUniform1i(glGetUniformLocation(program, "chroma"), 1)
    let (matrix, offset) = conversion(for: current.matrix)
    glUniformMatrix3fv(glGetUniformLocation(program, "matrix"), 1, GLboolean(GL_FALSE), matrix)
    glUniform3fv(glGetUniformLocation(program, "offset"), 1, offset)
    // A quad over the viewport; texture row 0 is the picture's top.
    let positions: [GLfloat] = [-1, -1, 1, -1, -1, 1, 1, 1]
    let texcoords: [GLfloat] = [0, 1, 1, 1, 0, 0, 1, 0]
    glEnableVertexAttribArray(0)
    glEnableVertexAttribArray(1)
    positions.withUnsafeBufferPointer { p in
        texcoords.withUnsafeBufferPointer { t in
            glVertexAttribPointer(0, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 0, p.baseAddress)
            glVertexAttribPointer(1, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 0, t.baseAddress)
            glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
        }
    }
    glDisableVertexAttribArray(0)
    glDisableVertexAttribArray(1)
    glUseProgram(0)
}

// MARK: Reading the window back

/// The RGB of window pixel (x, y) (top-left origin) in the back buffer just drawn.
func pixel(_ x: Int32, _ y: Int32) -> (Int, Int, Int) {
    var rgba = [UInt8](repeating: 0, count: 4)
    glReadPixels(x, windowHeight - 1 - y, 1, 1, GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), &rgba)
    return (Int(rgba[0]), Int(rgba[1]), Int(rgba[2]))
}

func matches(_ p: (Int, Int, Int), _ color: (Float, Float, Float)) -> Bool {
    abs(p.0 - Int(color.0 * 255)) <= 2 && abs(p.1 - Int(color.1 * 255)) <= 2 && abs(p.2 - Int(color.2 * 255)) <= 2
}

/// The frame index drawn in the picture, read from the window: the middle of each of the 16 bands of the strip.
@MainActor
func frameIndexOnScreen() -> Int {
    let stripMiddle = videoRect.y + videoRect.height / 16
    var index = 0
    for band in 0..<16 {
        let x = videoRect.x + Int32((Double(band) + 0.5) * Double(videoRect.width) / 16)
        let (r, g, b) = pixel(x, stripMiddle)
        if (r + g + b) / 3 > 128 { index |= 1 << band }
    }
    return index
}

/// Reads the window back after drawing the picture at `time`: the frame index, and the app's own drawing.
@MainActor
func check(_ label: String, frameRate: Double) -> Bool {
    guard let current else {
        print("\(label): no picture")
        return false
    }
    draw()
    let index = frameIndexOnScreen()
    let expected = Int((current.time.seconds * frameRate).rounded())
    let bar = matches(pixel(5, 5), barColor) && matches(pixel(windowWidth - 5, barHeight - 5), barColor)
    let border =
        matches(pixel(videoRect.x - 2, videoRect.y + 150), borderColor)
        && matches(pixel(videoRect.x + videoRect.width + 1, videoRect.y + 10), borderColor)
    let background = matches(pixel(10, 200), backgroundColor) && matches(pixel(470, 390), backgroundColor)
    print(
        "\(label): frame index \(index) on screen at \(String(format: "%.3f", current.time.seconds)) s "
            + "(expected \(expected)); bar \(bar ? "intact" : "OVERWRITTEN"), border \(border ? "intact" : "OVERWRITTEN"), "
            + "background \(background ? "intact" : "OVERWRITTEN")")
    return index == expected && bar && border && background
}

// MARK: The display link and the app's loop

/// A flag set from callbacks on other queues (a seek's completion, a notification) and read by the loop.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

var running = true
var failed = false
/// --bench: when each tick ended, and what each pull + upload cost (seconds).
var ticks: [Double] = []
var pullCosts: [Double] = []
/// --check: the steps, in order.
enum Step { case seeking, playing(until: Double), pausing, done }
var step = Step.seeking
let frameRate = 30.0

let link = CADisplayLink(oavfHandler: { link in
    var event = SDL_Event()
    while SDL_PollEvent(&event) != 0 {
        if event.type == SDL_QUIT.rawValue
            || (event.type == SDL_KEYDOWN.rawValue && event.key.keysym.sym == Int32(SDLK_ESCAPE.rawValue))
        {
            running = false
        }
    }
    // Pull the picture due at the next refresh (Apple's pattern).
    let start = CACurrentMediaTime()
    let t = output.itemTime(forHostTime: link.targetTimestamp)
    if output.hasNewPixelBuffer(forItemTime: t) {
        var shown = CMTime.invalid
        if let buffer = output.copyPixelBuffer(forItemTime: t, itemTimeForDisplay: &shown) {
            show(buffer, at: shown)
            // --bench: glFinish so the upload's cost is in the measurement, not deferred to the swap.
            if benchSeconds != nil {
                glFinish()
                pullCosts.append(CACurrentMediaTime() - start)
            }
        }
    }
    draw()
    SDL_GL_SwapWindow(window)
    ticks.append(CACurrentMediaTime())
})
link.add(to: .main, forMode: .common)

while item.status == .unknown { _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.01)) }
guard item.status == .readyToPlay else {
    print("cannot play \(path): \(item.error?.localizedDescription ?? "unknown error")")
    exit(1)
}
print("ready: \(String(format: "%.2f", item.duration.seconds)) s")

if let checkTime {
    let seeked = Flag()
    player.seek(to: CMTime(seconds: checkTime, preferredTimescale: 600), toleranceBefore: .zero, toleranceAfter: .zero)
    {
        if $0 { seeked.set() }
    }
    let deadline = Date().addingTimeInterval(60)
    while running && Date() < deadline {
        _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.01))
        switch step {
        case .seeking:
            // Paused at the seek target: the picture for it is what the link pulled.
            let target = CMTime(seconds: checkTime, preferredTimescale: 600)
            guard seeked.isSet, let current, current.time <= target,
                target - current.time < CMTime(value: 1, timescale: 30)
            else { continue }
            if !check("after seeking to \(checkTime) s", frameRate: frameRate) { failed = true }
            player.play()
            step = .playing(until: checkTime + 1)
        case .playing(let until):
            if player.currentTime().seconds >= until {
                player.pause()
                step = .pausing
            }
        case .pausing:
            // Paused: the picture for the paused time is (or comes) in; the link keeps drawing it.
            let paused = player.currentTime()
            guard let current, current.time <= paused, paused - current.time < CMTime(value: 1, timescale: 30)
            else { continue }
            if !check("paused at \(String(format: "%.3f", paused.seconds)) s", frameRate: frameRate) { failed = true }
            step = .done
        case .done:
            running = false
        }
    }
    if case .done = step {
    } else {
        print("the check did not finish")
        failed = true
    }
} else if let benchSeconds {
    player.play()
    while player.currentTime().seconds < 1 {
        _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.01))
    }
    // From the first second on (start-up excluded).
    ticks.removeAll()
    pullCosts.removeAll()
    let end = Date().addingTimeInterval(benchSeconds)
    while running && Date() < end { _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.01)) }
    let sorted = pullCosts.sorted()
    func percentile(_ p: Double) -> Double {
        sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }
    let span = (ticks.last ?? 0) - (ticks.first ?? 0)
    print(
        String(
            format: "bench: loop_fps=%.2f pictures=%d pull_upload_ms_median=%.3f pull_upload_ms_p99=%.3f",
            Double(ticks.count - 1) / max(span, 1e-9), pullCosts.count, percentile(0.5) * 1000, percentile(0.99) * 1000)
    )
} else {
    player.play()
    let ended = Flag()
    let ends = NotificationCenter.default.addObserver(
        forName: AVPlayerItem.didPlayToEndTimeNotification, object: item, queue: nil
    ) { _ in ended.set() }
    while running && !ended.isSet { _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.05)) }
    NotificationCenter.default.removeObserver(ends)
}

link.invalidate()
player.pause()
current = nil
CVOpenGLESTextureCacheFlush(textureCache, 0)
SDL_GL_DeleteContext(glContext)
SDL_DestroyWindow(window)
SDL_Quit()
exit(failed ? 1 : 0)
