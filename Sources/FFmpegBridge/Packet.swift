import CFFmpeg

/// Owns one `AVPacket` (DESIGN.md: one owner per C object). Not thread-safe: a packet belongs to
/// the thread that holds it, and moves between threads only through the engine's queues.
public final class Packet: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<AVPacket>

    public init() {
        guard let p = av_packet_alloc() else { fatalError("av_packet_alloc: out of memory") }
        pointer = p
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&p)
    }

    /// The index of the stream the packet belongs to; a source that merges several inputs renumbers it.
    public var streamIndex: Int {
        get { Int(pointer.pointee.stream_index) }
        set { pointer.pointee.stream_index = Int32(newValue) }
    }
    /// Presentation timestamp in the stream time base, nil if unknown.
    public var pts: Int64? { pointer.pointee.pts == Rational.noPTS ? nil : pointer.pointee.pts }
    public var dts: Int64? { pointer.pointee.dts == Rational.noPTS ? nil : pointer.pointee.dts }
    public var duration: Int64 { pointer.pointee.duration }
    public var size: Int { Int(pointer.pointee.size) }
    public var position: Int64 { pointer.pointee.pos }
    public var isKeyframe: Bool { pointer.pointee.flags & AV_PKT_FLAG_KEY != 0 }
    public var isCorrupt: Bool { pointer.pointee.flags & AV_PKT_FLAG_CORRUPT != 0 }

    /// Calls `body` with the payload bytes (valid only during the call).
    public func withData<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try body(UnsafeRawBufferPointer(start: pointer.pointee.data, count: Int(pointer.pointee.size)))
    }

    /// Attaches `extradata` as `AV_PKT_DATA_NEW_EXTRADATA` side data: the decoder takes it as its new configuration
    /// (the H.264 decoder reads its parameter sets), for a stream whose decoder configuration changes mid-stream —
    /// an HLS variant switch in fragmented MP4, where each variant's init section holds its own. False when empty or
    /// not allocated.
    @discardableResult
    public func attachNewExtradata(_ extradata: [UInt8]) -> Bool {
        guard !extradata.isEmpty,
            let side = av_packet_new_side_data(pointer, AV_PKT_DATA_NEW_EXTRADATA, extradata.count)
        else { return false }
        extradata.withUnsafeBufferPointer { side.update(from: $0.baseAddress!, count: extradata.count) }
        return true
    }

    /// Re-expresses the timestamps and duration, given in time base `from`, in time base `to`
    /// (`av_packet_rescale_ts`), then adds `offset` (in `to`) to the known timestamps: how a source re-bases a
    /// stream whose timestamps jump (an HTTP Live Streaming discontinuity) onto one timeline.
    public func retime(from: Rational, to: Rational, adding offset: Int64) {
        if from != to { av_packet_rescale_ts(pointer, from.av, to.av) }
        if pointer.pointee.pts != Rational.noPTS { pointer.pointee.pts += offset }
        if pointer.pointee.dts != Rational.noPTS { pointer.pointee.dts += offset }
    }

    /// Drops the payload, keeping the allocation for reuse.
    public func unref() { av_packet_unref(pointer) }

    /// A new packet referring to this one's payload (`av_packet_ref`: no copy of refcounted data), with the same
    /// timestamps, flags and side data.
    public func reference() -> Packet {
        let copy = Packet()
        guard av_packet_ref(copy.pointer, pointer) >= 0 else { fatalError("av_packet_ref: out of memory") }
        return copy
    }

    /// Moves `other`'s payload into this packet (other becomes blank).
    public func move(from other: Packet) {
        av_packet_unref(pointer)
        av_packet_move_ref(pointer, other.pointer)
    }
}
