// The GL side of the video pane: a YCbCr shader and the planes of the picture on screen as textures from
// CVOpenGLESTextureCache, made in the GtkGLArea's own context (desktop GL 3.2 core or OpenGL ES 3, whichever GTK
// gave). Bi-planar 8-bit (`420v`, `420f`: GL_R8 + GL_RG8) and 10-bit (`x420`, `xf20`: GL_R16 + GL_RG16) pictures.
import AVFoundation
import CGtk4

/// Draws the current picture into the GtkGLArea's framebuffer. Main thread only (GTK's), inside the area's
/// `realize`, `render` and `unrealize` handlers, where GTK has made the area's context current.
@MainActor
final class VideoRenderer {
    /// The picture on screen: its planes as textures, what converts them, and its item time.
    struct Picture {
        var luma: CVOpenGLESTexture
        var chroma: CVOpenGLESTexture
        var conversion: (matrix: [GLfloat], offset: [GLfloat], scale: GLfloat)
        var time: CMTime
        var pixelFormat: OSType
    }

    private let program: GLuint
    private var vertexArray: GLuint = 0
    private var vertexBuffer: GLuint = 0
    private let textureCache: CVOpenGLESTextureCache
    private(set) var picture: Picture?

    /// Builds the shader and the quad, and a texture cache, in the context current now (the area's). Nil when the
    /// context cannot (no texture cache, a shader that does not compile).
    init?(openGLES: Bool) {
        let header = openGLES ? "#version 300 es\nprecision highp float;\n" : "#version 150\n"
        let vertexSource =
            header + """
                in vec2 position;
                in vec2 texcoord;
                out vec2 uv;
                void main() { uv = texcoord; gl_Position = vec4(position, 0.0, 1.0); }
                """
        // `scale` turns a sample into its code / (2^bits - 1): 1 for 8-bit textures; 65535 / 65472 for P010, whose
        // 16-bit words hold the 10-bit code times 64.
        let fragmentSource =
            header + """
                uniform sampler2D luma;
                uniform sampler2D chroma;
                uniform mat3 matrix;
                uniform vec3 offset;
                uniform float scale;
                in vec2 uv;
                out vec4 color;
                void main() {
                    vec3 ycbcr = vec3(texture(luma, uv).r, texture(chroma, uv).rg) * scale - offset;
                    color = vec4(clamp(matrix * ycbcr, 0.0, 1.0), 1.0);
                }
                """
        guard let vertex = Self.compile(GL_VERTEX_SHADER, vertexSource),
            let fragment = Self.compile(GL_FRAGMENT_SHADER, fragmentSource)
        else { return nil }
        program = glCreateProgram()
        glAttachShader(program, vertex)
        glAttachShader(program, fragment)
        glBindAttribLocation(program, 0, "position")
        glBindAttribLocation(program, 1, "texcoord")
        glLinkProgram(program)
        glDeleteShader(vertex)
        glDeleteShader(fragment)

        var cache: CVOpenGLESTextureCache?
        guard
            CVOpenGLESTextureCacheCreate(kCFAllocatorDefault, nil, CGLGetCurrentContext(), nil, &cache)
                == kCVReturnSuccess, let cache
        else { return nil }
        textureCache = cache

        // A quad over the viewport (x, y, s, t); texture row 0 is the picture's top.
        let quad: [GLfloat] = [-1, -1, 0, 1, 1, -1, 1, 1, -1, 1, 0, 0, 1, 1, 1, 0]
        glGenVertexArrays(1, &vertexArray)
        glBindVertexArray(vertexArray)
        glGenBuffers(1, &vertexBuffer)
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), vertexBuffer)
        glBufferData(GLenum(GL_ARRAY_BUFFER), quad.count * 4, quad, GLenum(GL_STATIC_DRAW))
        let stride = GLsizei(4 * MemoryLayout<GLfloat>.size)
        glVertexAttribPointer(0, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), stride, nil)
        glVertexAttribPointer(1, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), stride, UnsafeRawPointer(bitPattern: 8))
        glEnableVertexAttribArray(0)
        glEnableVertexAttribArray(1)
        glBindVertexArray(0)
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), 0)
    }

    private static func compile(_ type: Int32, _ source: String) -> GLuint? {
        let shader = glCreateShader(GLenum(type))
        source.withCString { text in
            var pointer: UnsafePointer<GLchar>? = text
            glShaderSource(shader, 1, &pointer, nil)
        }
        glCompileShader(shader)
        var ok: GLint = 0
        glGetShaderiv(shader, GLenum(GL_COMPILE_STATUS), &ok)
        guard ok == 0 else { return shader }
        var log = [GLchar](repeating: 0, count: 1024)
        glGetShaderInfoLog(shader, 1024, nil, &log)
        print("shader: \(String(decoding: log.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        glDeleteShader(shader)
        return nil
    }

    /// YCbCr to RGB for a matrix attachment (BT.709, BT.2020, else BT.601) and the format's range and bit depth,
    /// column-major for `glUniformMatrix3fv`.
    static func conversion(
        matrixName: String?, pixelFormat: OSType
    ) -> (
        matrix: [GLfloat], offset: [GLfloat], scale: GLfloat
    ) {
        let (kr, kb): (Float, Float) =
            switch matrixName {
            case kCVImageBufferYCbCrMatrix_ITU_R_709_2: (0.2126, 0.0722)
            case kCVImageBufferYCbCrMatrix_ITU_R_2020: (0.2627, 0.0593)
            default: (0.299, 0.114)
            }
        let kg = 1 - kr - kb
        let tenBit =
            pixelFormat == kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange
            || pixelFormat == kCVPixelFormatType_420YpCbCr10BiPlanarFullRange
        let fullRange =
            pixelFormat == kCVPixelFormatType_420YpCbCr8BiPlanarFullRange
            || pixelFormat == kCVPixelFormatType_420YpCbCr10BiPlanarFullRange
        let maxCode: Float = tenBit ? 1023 : 255
        let step: Float = tenBit ? 4 : 1  // one 8-bit level in codes (10-bit video range is 64…940, as 16…235 × 4)
        let (y, c): (Float, Float) = fullRange ? (1, 1) : (maxCode / (219 * step), maxCode / (224 * step))
        let lumaOffset: Float = fullRange ? 0 : 16 * step / maxCode
        let crR = 2 * (1 - kr) * c
        let cbB = 2 * (1 - kb) * c
        let cbG = -2 * (1 - kb) * kb / kg * c
        let crG = -2 * (1 - kr) * kr / kg * c
        // Columns: Y, Cb, Cr.
        return (
            [y, y, y, 0, cbG, cbB, crR, crG, 0], [lumaOffset, 128 * step / maxCode, 128 * step / maxCode],
            tenBit ? 65535 / 65472 : 1
        )
    }

    /// Makes `buffer`'s planes the textures on screen (the previous ones go back to the cache).
    func show(_ buffer: CVPixelBuffer, at time: CMTime) {
        let format = CVPixelBufferGetPixelFormatType(buffer)
        let tenBit =
            format == kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange
            || format == kCVPixelFormatType_420YpCbCr10BiPlanarFullRange
        let type = GLenum(tenBit ? GL_UNSIGNED_SHORT : GL_UNSIGNED_BYTE)
        let width = Int32(CVPixelBufferGetWidthOfPlane(buffer, 0))
        let height = Int32(CVPixelBufferGetHeightOfPlane(buffer, 0))
        var luma: CVOpenGLESTexture?
        var chroma: CVOpenGLESTexture?
        guard CVPixelBufferGetPlaneCount(buffer) == 2,
            CVOpenGLESTextureCacheCreateTextureFromImage(
                kCFAllocatorDefault, textureCache, buffer, nil, GLenum(GL_TEXTURE_2D), tenBit ? GL_R16 : GL_R8, width,
                height, GLenum(GL_RED), type, 0, &luma) == kCVReturnSuccess,
            CVOpenGLESTextureCacheCreateTextureFromImage(
                kCFAllocatorDefault, textureCache, buffer, nil, GLenum(GL_TEXTURE_2D), tenBit ? GL_RG16 : GL_RG8,
                Int32(CVPixelBufferGetWidthOfPlane(buffer, 1)), Int32(CVPixelBufferGetHeightOfPlane(buffer, 1)),
                GLenum(GL_RG), type, 1, &chroma) == kCVReturnSuccess,
            let luma, let chroma
        else {
            print("cannot make textures of a \(CVPixelBufferGetPlaneCount(buffer))-plane buffer")
            return
        }
        let matrix = CVBufferCopyAttachment(buffer, kCVImageBufferYCbCrMatrixKey, nil) as? String
        picture = Picture(
            luma: luma, chroma: chroma, conversion: Self.conversion(matrixName: matrix, pixelFormat: format),
            time: time, pixelFormat: format)
    }

    /// Draws the picture over the whole area (the framebuffer GTK bound), or black before the first one.
    func draw(width: Int32, height: Int32) {
        glViewport(0, 0, width, height)
        glClearColor(0, 0, 0, 1)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        guard let picture else { return }
        glUseProgram(program)
        glActiveTexture(GLenum(GL_TEXTURE0))
        glBindTexture(GLenum(GL_TEXTURE_2D), CVOpenGLESTextureGetName(picture.luma))
        glActiveTexture(GLenum(GL_TEXTURE1))
        glBindTexture(GLenum(GL_TEXTURE_2D), CVOpenGLESTextureGetName(picture.chroma))
        glActiveTexture(GLenum(GL_TEXTURE0))
        glUniform1i(glGetUniformLocation(program, "luma"), 0)
        glUniform1i(glGetUniformLocation(program, "chroma"), 1)
        glUniformMatrix3fv(
            glGetUniformLocation(program, "matrix"), 1, GLboolean(GL_FALSE), picture.conversion.matrix)
        glUniform3fv(glGetUniformLocation(program, "offset"), 1, picture.conversion.offset)
        glUniform1f(glGetUniformLocation(program, "scale"), picture.conversion.scale)
        glBindVertexArray(vertexArray)
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
        glBindVertexArray(0)
        glUseProgram(0)
    }

    /// Lets go of every GL object (the area's context must be current: its `unrealize`).
    func release() {
        picture = nil
        CVOpenGLESTextureCacheFlush(textureCache, 0)
        glDeleteBuffers(1, &vertexBuffer)
        glDeleteVertexArrays(1, &vertexArray)
        glDeleteProgram(program)
    }
}
