// The system's static types (Apple's `UTType` static properties), for the types this package declares.

extension UTType {
    /// A declared type; every identifier here is in UTTypeCatalogue.
    private static func declared(_ identifier: String) -> UTType {
        guard let declaration = UTTypeCatalogue.declaration(identifier) else {
            preconditionFailure("UTTypeCatalogue declares no \(identifier)")
        }
        return UTType(declared: declaration)
    }

    // MARK: Base types

    /// The base type of the physical hierarchy: files, folders and the like (`public.item`).
    public static var item: UTType { declared("public.item") }
    /// The base type of everything a user views or reads: documents, images, media (`public.content`).
    public static var content: UTType { declared("public.content") }
    /// Content mixing several kinds, such as a PDF (`public.composite-content`; conforms to `content`).
    public static var compositeContent: UTType { declared("public.composite-content") }
    /// A byte stream: files and in-memory data (`public.data`; conforms to `item`).
    public static var data: UTType { declared("public.data") }
    /// A file-system directory (`public.directory`; conforms to `item`).
    public static var directory: UTType { declared("public.directory") }
    /// A user-browsable folder (`public.folder`; conforms to `directory`).
    public static var folder: UTType { declared("public.folder") }
    /// A URL (`public.url`; conforms to `data`).
    public static var url: UTType { declared("public.url") }
    /// A URL of a file (`public.file-url`; conforms to `url`).
    public static var fileURL: UTType { declared("public.file-url") }

    // MARK: Text

    /// Text of any encoding or format (`public.text`; conforms to `data` and `content`).
    public static var text: UTType { declared("public.text") }
    /// Text without markup (`public.plain-text`, `.txt`, `text/plain`; conforms to `text`).
    public static var plainText: UTType { declared("public.plain-text") }
    /// Unicode plain text in UTF-8 (`public.utf8-plain-text`; conforms to `plainText`).
    public static var utf8PlainText: UTType { declared("public.utf8-plain-text") }
    /// HTML (`public.html`, `.html`, `text/html`; conforms to `text`).
    public static var html: UTType { declared("public.html") }
    /// XML (`public.xml`, `.xml`, `application/xml`; conforms to `text`).
    public static var xml: UTType { declared("public.xml") }
    /// JSON (`public.json`, `.json`, `application/json`; conforms to `text`).
    public static var json: UTType { declared("public.json") }

    // MARK: Images

    /// The base type of images (`public.image`; conforms to `data` and `content`).
    public static var image: UTType { declared("public.image") }
    /// JPEG (`public.jpeg`, `.jpeg`/`.jpg`, `image/jpeg`; conforms to `image`).
    public static var jpeg: UTType { declared("public.jpeg") }
    /// PNG (`public.png`, `.png`, `image/png`; conforms to `image`).
    public static var png: UTType { declared("public.png") }
    /// TIFF (`public.tiff`, `.tiff`/`.tif`, `image/tiff`; conforms to `image`).
    public static var tiff: UTType { declared("public.tiff") }
    /// GIF (`com.compuserve.gif`, `.gif`, `image/gif`; conforms to `image`).
    public static var gif: UTType { declared("com.compuserve.gif") }
    /// Windows bitmap (`com.microsoft.bmp`, `.bmp`, `image/bmp`; conforms to `image`).
    public static var bmp: UTType { declared("com.microsoft.bmp") }
    /// Windows icon (`com.microsoft.ico`, `.ico`; conforms to `image`).
    public static var ico: UTType { declared("com.microsoft.ico") }
    /// SVG (`public.svg-image`, `.svg`, `image/svg+xml`; conforms to `image`).
    public static var svg: UTType { declared("public.svg-image") }
    /// WebP (`org.webmproject.webp`, `.webp`, `image/webp`; conforms to `image`).
    public static var webP: UTType { declared("org.webmproject.webp") }
    /// HEIF with any codec (`public.heif`, `.heif`, `image/heif`; conforms to `public.heif-standard`, an image).
    public static var heif: UTType { declared("public.heif") }
    /// HEIF with HEVC (`public.heic`, `.heic`, `image/heic`; conforms to `public.heif-standard`, an image).
    public static var heic: UTType { declared("public.heic") }
    /// A camera's raw image (`public.camera-raw-image`; conforms to `image`).
    public static var rawImage: UTType { declared("public.camera-raw-image") }

    // MARK: Audio and video

    /// The base type of audio and video (`public.audiovisual-content`; conforms to `data` and `content`).
    public static var audiovisualContent: UTType { declared("public.audiovisual-content") }
    /// Video that may have sound (`public.movie`; conforms to `audiovisualContent`).
    public static var movie: UTType { declared("public.movie") }
    /// Video without sound (`public.video`; conforms to `movie`).
    public static var video: UTType { declared("public.video") }
    /// Sound without video (`public.audio`; conforms to `audiovisualContent`).
    public static var audio: UTType { declared("public.audio") }
    /// QuickTime movie (`com.apple.quicktime-movie`, `.mov`, `video/quicktime`; conforms to `movie`).
    public static var quickTimeMovie: UTType { declared("com.apple.quicktime-movie") }
    /// MPEG-1 or MPEG-2 movie (`public.mpeg`, `.mpg`, `video/mpeg`; conforms to `movie`).
    public static var mpeg: UTType { declared("public.mpeg") }
    /// MPEG-2 video (`public.mpeg-2-video`, `.m2v`; conforms to `video`).
    public static var mpeg2Video: UTType { declared("public.mpeg-2-video") }
    /// MPEG-2 transport stream (`public.mpeg-2-transport-stream`, `.ts`; conforms to `movie`).
    public static var mpeg2TransportStream: UTType { declared("public.mpeg-2-transport-stream") }
    /// MPEG-4 movie (`public.mpeg-4`, `.mp4`, `video/mp4`; conforms to `movie`).
    public static var mpeg4Movie: UTType { declared("public.mpeg-4") }
    /// MPEG-4 audio (`public.mpeg-4-audio`, `audio/mp4`; conforms to `mpeg4Movie` and `audio`).
    public static var mpeg4Audio: UTType { declared("public.mpeg-4-audio") }
    /// Apple-protected MPEG-4 audio (`com.apple.protected-mpeg-4-audio`, `.m4p`; conforms to `audio`).
    public static var appleProtectedMPEG4Audio: UTType { declared("com.apple.protected-mpeg-4-audio") }
    /// AVI movie (`public.avi`, `.avi`, `video/avi`; conforms to `movie`).
    public static var avi: UTType { declared("public.avi") }
    /// MP3 audio (`public.mp3`, `.mp3`, `audio/mpeg`; conforms to `audio`).
    public static var mp3: UTType { declared("public.mp3") }
    /// AIFF audio (`public.aiff-audio`, `.aiff`, `audio/aiff`; conforms to `audio`).
    public static var aiff: UTType { declared("public.aiff-audio") }
    /// WAVE audio (`com.microsoft.waveform-audio`, `.wav`, `audio/vnd.wave`; conforms to `audio`).
    public static var wav: UTType { declared("com.microsoft.waveform-audio") }
    /// MIDI (`public.midi-audio`, `.midi`, `audio/midi`; conforms to `audio`).
    public static var midi: UTType { declared("public.midi-audio") }
    /// The base type of playlists (`public.playlist`).
    public static var playlist: UTType { declared("public.playlist") }
    /// M3U or M3U8 playlist, HLS's (`public.m3u-playlist`, `.m3u`/`.m3u8`, `audio/mpegurl`,
    /// `application/vnd.apple.mpegurl`; conforms to `text` and `playlist`).
    public static var m3uPlaylist: UTType { declared("public.m3u-playlist") }
}
