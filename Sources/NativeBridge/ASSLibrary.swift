import CLibass

/// Owns one libass library handle (`ASS_Library`, freed with `ass_library_done` in `deinit`; DESIGN.md: one owner per
/// C object): the fonts and settings that the renderers and tracks made from it share.
///
/// Each ``ASSRenderer`` and ``ASSTrack`` holds its library strongly, so the library is freed after the last of them.
///
/// Not thread-safe: libass has no locks, so a library and every renderer and track made from it belong to one thread
/// at a time (the engine's: a window's thread). Not `Sendable`.
package final class ASSLibrary {
    /// The owned handle (`ASS_Library` is opaque).
    let pointer: OpaquePointer

    /// A library (`ass_library_init`); nil when libass cannot start.
    package init?() {
        guard let pointer = ass_library_init() else { return nil }
        self.pointer = pointer
    }

    deinit { ass_library_done(pointer) }

    /// Drops libass's messages (`ass_set_message_cb` with a callback that does nothing); without it libass prints its
    /// version and font-matching chatter to stderr.
    package func silenceMessages() {
        ass_set_message_cb(pointer, { _, _, _, _ in }, nil)
    }
}
