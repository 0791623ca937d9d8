import CLibass
import Foundation

/// Owns one libass track (`ASS_Track`, freed with `ass_free_track` in `deinit`; DESIGN.md: one owner per C object): a
/// subtitle script's header and styles, and the events a renderer draws from it.
///
/// Keeps its ``ASSLibrary`` alive. Not thread-safe: a track belongs to the thread that owns its library (libass has no
/// locks). Not `Sendable`.
package final class ASSTrack {
    /// The owned track.
    let pointer: UnsafeMutablePointer<ASS_Track>
    /// The library the track was made from; freed after the track.
    private let library: ASSLibrary

    /// An empty track of `library` (`ass_new_track`); nil when libass cannot make one.
    package init?(library: ASSLibrary) {
        guard let pointer = ass_new_track(library.pointer) else { return nil }
        self.pointer = pointer
        self.library = library
    }

    deinit { ass_free_track(pointer) }

    /// Reads a script header — `[Script Info]`, styles and the `[Events]` format line, as a Matroska track's codec
    /// private data holds it — into the track (`ass_process_codec_private`).
    package func processCodecPrivate(_ header: String) {
        var bytes = Array(header.utf8CString)
        bytes.withUnsafeMutableBufferPointer {
            ass_process_codec_private(pointer, $0.baseAddress, Int32($0.count - 1))
        }
    }

    /// Whether libass drops an event whose read order it has seen before (`ass_set_check_readorder`; libass's
    /// default is true).
    package func setCheckReadOrder(_ check: Bool) {
        ass_set_check_readorder(pointer, check ? 1 : 0)
    }

    /// Removes every event (`ass_flush_events`).
    package func flushEvents() {
        ass_flush_events(pointer)
    }

    /// Adds one event from an event line as a Matroska block holds it (`ReadOrder,Layer,Style,Name,…,Text`), shown
    /// from `start` for `duration` milliseconds (`ass_process_chunk`).
    package func processChunk(_ line: String, start: Int64, duration: Int64) {
        var bytes = Array(line.utf8CString)
        bytes.withUnsafeMutableBufferPointer {
            ass_process_chunk(pointer, $0.baseAddress, Int32($0.count - 1), start, duration)
        }
    }

    /// The script's `PlayResY` (0 when neither the script nor libass set it).
    package var playResY: Int { Int(pointer.pointee.PlayResY) }

    /// How many styles the track has.
    package var styleCount: Int { pointer.pointee.styles == nil ? 0 : Int(pointer.pointee.n_styles) }

    /// Lets `body` change the style at `index` (in `0..<styleCount`); writes back only the fields it changed.
    package func updateStyle(at index: Int, _ body: (inout ASSStyle) -> Void) {
        precondition(index >= 0 && index < styleCount, "ASSTrack: style index out of range")
        let style = pointer.pointee.styles + index
        let old = ASSStyle(
            fontName: style.pointee.FontName.map { String(cString: $0) } ?? "", fontSize: style.pointee.FontSize,
            primaryColour: style.pointee.PrimaryColour, bold: Int(style.pointee.Bold),
            italic: Int(style.pointee.Italic), underline: Int(style.pointee.Underline))
        var new = old
        body(&new)
        if new.primaryColour != old.primaryColour { style.pointee.PrimaryColour = new.primaryColour }
        if new.bold != old.bold { style.pointee.Bold = Int32(new.bold) }
        if new.italic != old.italic { style.pointee.Italic = Int32(new.italic) }
        if new.underline != old.underline { style.pointee.Underline = Int32(new.underline) }
        // libass frees the name with the track; an allocation failure keeps the old one.
        if new.fontName != old.fontName, let copy = strdup(new.fontName) {
            free(style.pointee.FontName)
            style.pointee.FontName = copy
        }
        if new.fontSize != old.fontSize { style.pointee.FontSize = new.fontSize }
    }
}
