import CoreMedia

// How far the item's input has been read, and whether its reader waits for more (buffering state, stalls, the clock's
// limit for network sources). Any thread.
extension ItemSession {
    /// The demuxer reached the end of the input (for buffering state).
    package var isAtEndOfFile: Bool { reading.demuxer?.isAtEndOfFile ?? false }

    /// End of demuxed media in item time (the whole item at end of file).
    package var bufferedEnd: CMTime? {
        guard let d = reading.demuxer else { return nil }
        if d.isAtEndOfFile { return descriptor.duration.isNumeric ? descriptor.duration : nil }
        return d.bufferedEnd.map(itemTime)
    }

    /// How far the media streams have been read, in item time (``Demuxer/readEnd``): nil at the end of the input.
    package var readEnd: CMTime? { reading.demuxer?.readEnd.map(itemTime) }

    /// Whether the source's reader waits for input that has not arrived (``MediaSource/isWaitingForInput``); true
    /// before it is open.
    package var isWaitingForInput: Bool { reading.source?.isWaitingForInput ?? true }
}
