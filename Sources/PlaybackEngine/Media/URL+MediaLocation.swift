import Foundation

extension URL {
    /// What libavformat opens for this URL: the path of a file URL, the whole URL otherwise. Any thread.
    package var mediaLocation: String { isFileURL ? path : absoluteString }
}
