import FFmpegBridge
import Foundation
import PlaybackEngine

/// Reads a resource whose bytes an ``AVAssetResourceLoader``'s delegate supplies, for libavformat's custom I/O (an
/// ``FFmpegSource`` whose ``SourceOptions/customInput`` is the asset's loader).
///
/// Requests, as Apple's player makes them: first one with a content-information request and a data request for the
/// first two bytes, then, from where the demuxer reads, one data request to the end of the resource; a read
/// elsewhere cancels the request in flight (its bytes not read are dropped) and makes a new one at the new offset
/// (a seek within bytes already received skips them instead). One request is in flight at a time.
///
/// Waits for the delegate on the ``ResourceLoadingChannel``'s condition, woken by each answer and by the source's
/// ``Cancellation`` (which cancels the request in flight and makes every wait throw `FFmpegError.exit`): it never
/// waits on anything else, and never past an interruption. When the source closes the reader, a request still in
/// flight is cancelled.
///
/// Threads: read, seek and the properties belong to the thread reading the source (see ``MediaSource``); the channel
/// is shared with the app's threads.
final class ResourceLoaderReader: CustomInputReader {
    /// How the text of the failures the reader reports starts (``AVAssetResourceLoader/failure(causing:)``).
    static let failurePrefix = "AVAssetResourceLoader"
    /// Bytes the first request asks for beside the content information, as Apple's player asks.
    static let firstRequestLength = 2

    private let loader: AVAssetResourceLoader
    private let url: URL
    private let channel: ResourceLoadingChannel
    /// Where the next read starts.
    private(set) var position: Int64 = 0
    /// The resource's length (nil: unknown) and whether ranges can be asked for, once the first request finished.
    private var content: (length: Int64?, ranges: Bool)?
    /// The request bytes come from now, and the resource offset of its next byte not read.
    private var current: (request: AVAssetResourceLoadingRequest, next: Int64)?
    private(set) var failure: FFmpegError?
    /// The resource's first bytes, as far as they were read (up to the length of `#EXTM3U`).
    private var head: [UInt8] = []

    init(loader: AVAssetResourceLoader, url: URL, cancellation: Cancellation, wake: CustomInputWake) {
        self.loader = loader
        self.url = url
        channel = ResourceLoadingChannel(loader: loader)
        cancellation.whenCancelled { [channel] in channel.interrupt() }
        wake.set { [channel] in channel.wakeReader() }
    }

    deinit {
        if let current { channel.cancel(current.request) }
    }

    var byteCount: Int64 { content?.length ?? -1 }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(FFmpegError) -> Int {
        if let failure { throw failure }
        if content == nil { try loadContentInformation() }
        while true {
            if let length = content?.length, position >= length { return 0 }
            let (request, next) = try requestAtPosition()
            switch try wait(for: request, into: buffer) {
            case .bytes(let count):
                if next == Int64(head.count) && head.count < Self.playlistTag.count {
                    try refuseStreamingPlaylist(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                }
                position += Int64(count)
                current = (request, position)
            case .failed(let reason):
                throw fail(reason)
            case .ended:
                guard let data = request.dataRequest else { return 0 }
                let readWhole =
                    !data.requestsAllDataToEndOfResource && next == data.requestedOffset + Int64(data.requestedLength)
                // A content-information request finished without (all) its bytes, before the length stated.
                let informationOnly =
                    request.contentInformationRequest != nil && content?.length.map { next < $0 } == true
                // Else the resource ends here (the delegate gave all it has).
                guard readWhole || informationOnly else { return 0 }
                // The next request goes on from here.
                current = nil
                continue
            }
            return Int(position - next)
        }
    }

    func seek(to offset: Int64) -> Bool {
        guard failure == nil, offset >= 0 else { return false }
        if let length = content?.length, offset > length { return false }
        if offset == position { return true }
        guard content?.ranges == true else { return false }
        if let current, current.next == position, offset > position, let data = current.request.dataRequest {
            // Bytes already received up to the offset are skipped rather than asked for again.
            let gap = Int(offset - position)
            let skipped = channel.condition.withLock {
                data.buffered.count >= gap ? data.buffered.take(gap, into: nil) : 0
            }
            if skipped == gap {
                position = offset
                self.current = (current.request, offset)
                return true
            }
        }
        position = offset
        return true
    }

    // MARK: Requests

    /// Makes the first request (content information and the first bytes) and waits until it finishes; its bytes
    /// are read next.
    private func loadContentInformation() throws(FFmpegError) {
        let request = try makeRequest(offset: 0, length: Self.firstRequestLength, toEnd: false, information: true)
        current = (request, 0)
        let finished = channel.condition.withLock { () -> Result<Void, FFmpegError> in
            while true {
                if channel.isInterrupted { return .failure(.exit) }
                if request.state.finished || request.state.cancelled { return .success(()) }
                channel.condition.wait()
            }
        }
        try finished.get()
        if let reason = channel.condition.withLock({ request.state.failure }) { throw fail(reason) }
        guard let info = request.contentInformationRequest else { return }
        content = (info.contentLength > 0 ? info.contentLength : nil, info.isByteRangeAccessSupported)
    }

    /// The request whose next byte is at ``position``: the current one, else a new one to the end of the resource
    /// (the current one cancelled).
    private func requestAtPosition() throws(FFmpegError) -> (AVAssetResourceLoadingRequest, Int64) {
        if let current, current.next == position { return current }
        if let current { channel.cancel(current.request) }
        current = nil
        let length = content?.length.map { Int(clamping: $0 - position) } ?? Int.max
        let request = try makeRequest(offset: position, length: length, toEnd: true, information: false)
        current = (request, position)
        return (request, position)
    }

    private func makeRequest(
        offset: Int64, length: Int, toEnd: Bool, information: Bool
    ) throws(FFmpegError) -> AVAssetResourceLoadingRequest {
        let request = AVAssetResourceLoadingRequest(
            url: url, offset: offset, length: length, toEnd: toEnd, asksForContentInformation: information,
            channel: channel)
        guard channel.register(request) else { throw FFmpegError.exit }
        loader.send(request)
        return request
    }

    private enum Answer {
        case bytes(Int)
        case ended
        case failed(ResourceLoadingFailure)
    }

    /// Waits until `request` has bytes (copies them into `buffer`), ends, or fails.
    private func wait(
        for request: AVAssetResourceLoadingRequest, into buffer: UnsafeMutableRawBufferPointer
    ) throws(FFmpegError) -> Answer {
        guard let data = request.dataRequest else { return .ended }
        let answer = channel.condition.withLock { () -> Result<Answer, FFmpegError> in
            defer {
                channel.isReaderWaiting = false
                channel.isWakeRequested = false
            }
            while true {
                if channel.isInterrupted { return .failure(.exit) }
                if data.buffered.count > 0 { return .success(.bytes(data.buffered.take(buffer.count, into: buffer))) }
                if request.state.cancelled { return .failure(.exit) }
                if let reason = request.state.failure { return .success(.failed(reason)) }
                if request.state.finished { return .success(.ended) }
                // A seek waits: the thread goes back to the demuxer, which seeks (the request stays in flight).
                if channel.isWakeRequested { return .failure(.tryAgain) }
                channel.isReaderWaiting = true
                channel.condition.wait()
            }
        }
        return try answer.get()
    }

    // MARK: Failures

    /// Records why reading stopped (for the asset's or item's error) and returns the error to throw.
    private func fail(_ reason: ResourceLoadingFailure) -> FFmpegError {
        let name = url.absoluteString
        let error: AVError
        switch reason {
        case .noDelegate:
            error = .media(
                .formatUnsupported,
                "“\(name)” can’t be opened: the player doesn’t load the URL scheme “\(url.scheme ?? "")” itself, and "
                    + "the asset’s resource loader has no delegate.",
                reason: "Give the asset’s resourceLoader a delegate (setDelegate(_:queue:)) that supplies the bytes.",
                url: url)
        case .declined:
            error = .media(
                .contentIsUnavailable, "The resource loader’s delegate declined to load “\(name)”.",
                reason: "resourceLoader(_:shouldWaitForLoadingOfRequestedResource:) returned false.", url: url)
        case .delegateError(let underlying):
            let description =
                underlying.map { "The resource loader’s delegate failed to load “\(name)”: \($0.localizedDescription)" }
                ?? "The resource loader’s delegate failed to load “\(name)”."
            var info = AVError.media(
                .failedToLoadMediaData, description,
                reason: "The delegate finished a loading request with an error.", url: url
            ).errorUserInfo
            if let underlying { info[NSUnderlyingErrorKey] = underlying }
            error = AVError(.failedToLoadMediaData, userInfo: info)
        }
        return record(error, code: FFmpegError.posix(EIO).code)
    }

    /// How an HTTP Live Streaming playlist starts.
    static let playlistTag = Array("#EXTM3U".utf8)

    /// Refuses an HTTP Live Streaming playlist (its first bytes `#EXTM3U`): its segments would need the delegate too.
    /// `bytes` are the ones read at the end of ``head``.
    private func refuseStreamingPlaylist(_ bytes: UnsafeRawBufferPointer) throws(FFmpegError) {
        head += bytes.prefix(Self.playlistTag.count - head.count)
        guard head.count == Self.playlistTag.count, head == Self.playlistTag else { return }
        let error = AVError.media(
            .formatUnsupported,
            "“\(url.absoluteString)” is an HTTP Live Streaming playlist, which this player can’t load through a "
                + "resource loader.",
            reason: "HTTP Live Streaming through AVAssetResourceLoader is not supported here; give the asset the "
                + "playlist’s http(s) URL.", url: url)
        throw record(error, code: FFmpegError.patchWelcome.code)
    }

    private func record(_ error: AVError, code: Int32) -> FFmpegError {
        loader.record(error)
        if let current { channel.cancel(current.request) }
        current = nil
        let thrown = FFmpegError(code: code, function: "\(Self.failurePrefix): \(error.localizedDescription)")
        failure = thrown
        return thrown
    }
}
