/// One declared type: its identifier, the types it conforms to directly, and its tags in order of preference.
struct UTTypeDeclaration: Sendable {
    let identifier: String
    let conformsTo: [String]
    let filenameExtensions: [String]
    let mimeTypes: [String]

    init(_ identifier: String, _ conformsTo: [String], _ filenameExtensions: [String] = [], _ mimeTypes: [String] = [])
    {
        self.identifier = identifier
        self.conformsTo = conformsTo
        self.filenameExtensions = filenameExtensions
        self.mimeTypes = mimeTypes
    }
}

/// The types this package declares, as Apple's system declares them: identifiers and direct conformance from
/// Apple's `UTCoreTypes.h` / UniformTypeIdentifiers documentation, tags (preferred first) as macOS's type database
/// answers for them. Where a tag is declared by two types (`m4a`: `public.mpeg-4-audio` and `com.apple.m4a-audio`),
/// lookups prefer the more specific, as Apple's do.
///
/// One difference from the documentation: Apple's page for `mpeg4Audio` says it conforms to `UTTypeMPEG`; the
/// header it is generated from (and the system) say `public.mpeg-4`, which is what is declared here.
enum UTTypeCatalogue {
    static let declarations: [UTTypeDeclaration] = [
        // Base types.
        UTTypeDeclaration("public.item", []),
        UTTypeDeclaration("public.content", []),
        UTTypeDeclaration("public.composite-content", ["public.content"]),
        UTTypeDeclaration("public.data", ["public.item"]),
        UTTypeDeclaration("public.directory", ["public.item"]),
        UTTypeDeclaration("public.folder", ["public.directory"]),
        UTTypeDeclaration("public.url", ["public.data"]),
        UTTypeDeclaration("public.file-url", ["public.url"]),
        // Text.
        UTTypeDeclaration("public.text", ["public.data", "public.content"]),
        UTTypeDeclaration("public.plain-text", ["public.text"], ["txt", "text"], ["text/plain"]),
        UTTypeDeclaration("public.utf8-plain-text", ["public.plain-text"]),
        UTTypeDeclaration("public.html", ["public.text"], ["html", "htm", "shtml", "shtm"], ["text/html"]),
        UTTypeDeclaration("public.xml", ["public.text"], ["xml"], ["application/xml", "text/xml"]),
        UTTypeDeclaration("public.json", ["public.text"], ["json"], ["application/json"]),
        // Images.
        UTTypeDeclaration("public.image", ["public.data", "public.content"]),
        UTTypeDeclaration("public.jpeg", ["public.image"], ["jpeg", "jpg", "jpe"], ["image/jpeg"]),
        UTTypeDeclaration("public.png", ["public.image"], ["png"], ["image/png"]),
        UTTypeDeclaration("public.tiff", ["public.image"], ["tiff", "tif"], ["image/tiff"]),
        UTTypeDeclaration("com.compuserve.gif", ["public.image"], ["gif"], ["image/gif"]),
        UTTypeDeclaration("com.microsoft.bmp", ["public.image"], ["bmp", "dib"], ["image/bmp", "image/x-bmp"]),
        UTTypeDeclaration("com.microsoft.ico", ["public.image"], ["ico"], ["image/vnd.microsoft.icon"]),
        UTTypeDeclaration("public.svg-image", ["public.image"], ["svg", "svgz"], ["image/svg+xml"]),
        UTTypeDeclaration("org.webmproject.webp", ["public.image"], ["webp"], ["image/webp"]),
        UTTypeDeclaration("public.heif-standard", ["public.image"]),
        UTTypeDeclaration("public.heif", ["public.heif-standard"], ["heif"], ["image/heif"]),
        UTTypeDeclaration("public.heic", ["public.heif-standard"], ["heic"], ["image/heic"]),
        UTTypeDeclaration("public.camera-raw-image", ["public.image"]),
        // Audio and video.
        UTTypeDeclaration("public.audiovisual-content", ["public.data", "public.content"]),
        UTTypeDeclaration("public.movie", ["public.audiovisual-content"]),
        UTTypeDeclaration("public.video", ["public.movie"]),
        UTTypeDeclaration("public.audio", ["public.audiovisual-content"]),
        UTTypeDeclaration(
            "com.apple.quicktime-movie", ["public.movie"], ["mov", "qt"], ["video/quicktime"]),
        UTTypeDeclaration(
            "public.mpeg", ["public.movie"], ["mpg", "mpeg", "mpe", "m75", "m15"], ["video/mpeg", "video/mpg"]),
        UTTypeDeclaration("public.mpeg-2-video", ["public.video"], ["m2v"], ["video/mpeg2"]),
        UTTypeDeclaration("public.mpeg-2-transport-stream", ["public.movie"], ["ts"]),
        UTTypeDeclaration("public.mpeg-4", ["public.movie"], ["mp4", "mpg4"], ["video/mp4", "video/mp4v"]),
        UTTypeDeclaration("com.apple.m4v-video", ["public.mpeg-4"], ["m4v"], ["video/x-m4v"]),
        UTTypeDeclaration("public.mpeg-4-audio", ["public.mpeg-4", "public.audio"], ["m4a"], ["audio/mp4"]),
        UTTypeDeclaration("com.apple.m4a-audio", ["public.mpeg-4-audio"], ["m4a"], ["audio/x-m4a"]),
        UTTypeDeclaration("com.apple.protected-mpeg-4-audio", ["public.audio"], ["m4p"]),
        UTTypeDeclaration(
            "public.avi", ["public.movie"], ["avi", "vfw"], ["video/avi", "video/msvideo", "video/x-msvideo"]),
        UTTypeDeclaration("public.mp3", ["public.audio"], ["mp3", "mpga"], ["audio/mpeg", "audio/mp3"]),
        UTTypeDeclaration("public.aac-audio", ["public.audio"], ["aac", "adts"], ["audio/aac", "audio/x-aac"]),
        UTTypeDeclaration("public.ac3-audio", ["public.audio"], ["ac3"], ["audio/ac3"]),
        UTTypeDeclaration("public.aiff-audio", ["public.audio"], ["aiff", "aif"], ["audio/aiff", "audio/x-aiff"]),
        UTTypeDeclaration(
            "com.microsoft.waveform-audio", ["public.audio"], ["wav", "wave", "bwf"],
            ["audio/vnd.wave", "audio/wav", "audio/wave", "audio/x-wav"]),
        UTTypeDeclaration("public.midi-audio", ["public.audio"], ["midi", "mid", "smf", "kar"], ["audio/midi"]),
        UTTypeDeclaration("public.playlist", []),
        UTTypeDeclaration(
            "public.m3u-playlist", ["public.text", "public.playlist"], ["m3u", "m3u8"],
            ["audio/mpegurl", "audio/x-mpegurl", "application/x-mpegurl", "application/vnd.apple.mpegurl"]),
    ]

    /// Declarations by lower-cased identifier.
    private static let byIdentifier: [String: UTTypeDeclaration] = Dictionary(
        declarations.map { ($0.identifier.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })

    /// Declarations by tag class and lower-cased tag, in declaration order.
    private static let byTag: [UTTagClass: [String: [UTTypeDeclaration]]] = {
        var index: [UTTagClass: [String: [UTTypeDeclaration]]] = [:]
        for declaration in declarations {
            for tag in declaration.filenameExtensions {
                index[.filenameExtension, default: [:]][tag.lowercased(), default: []].append(declaration)
            }
            for tag in declaration.mimeTypes {
                index[.mimeType, default: [:]][tag.lowercased(), default: []].append(declaration)
            }
        }
        return index
    }()

    /// The declaration of `identifier` (any letter case).
    static func declaration(_ identifier: String) -> UTTypeDeclaration? {
        byIdentifier[identifier.lowercased()]
    }

    /// The declarations carrying `tag` (any letter case) in `tagClass`, in declaration order.
    static func declarations(tag: String, tagClass: UTTagClass) -> [UTTypeDeclaration] {
        byTag[tagClass]?[tag.lowercased()] ?? []
    }
}
