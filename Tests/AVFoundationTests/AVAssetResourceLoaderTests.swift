import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// An asset whose URL has a custom scheme (`cache-file:`) gets its bytes from its resource loader's delegate
/// (``MemoryResourceDelegate`` serves h264_aac.mp4 from memory: 30 fps, a keyframe every 2 s, its `moov` at the end).
final class AVAssetResourceLoaderTests: XCTestCase {
    /// Top-level MP4 boxes of `data`: offset and type.
    private func boxes(_ data: Data) -> [(offset: Int64, type: String)] {
        var result: [(Int64, String)] = []
        var offset = 0
        while offset + 8 <= data.count {
            let size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            result.append((Int64(offset), String(decoding: data[offset + 4..<offset + 8], as: UTF8.self)))
            guard size >= 8 else { break }
            offset += size
        }
        return result
    }

    /// Plays `item` on a virtual player from its start to its end: the player, and the end notifications posted.
    private func playToTheEnd(_ item: AVPlayerItem) -> (VirtualPlayer, ends: Int) {
        let v = VirtualPlayer()
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay || item.status == .failed }
        XCTAssertNil(item.error)
        v.player.play()
        waitUntil("end") { ends.count >= 1 }
        settle(v.player)
        return (v, ends.count)
    }

    func test_playToEnd_fromTheDelegatesBytes_everyFrameInOrder_contentInformationFirst() throws {
        let delegate = try MemoryResourceDelegate(file: try fixture(.h264AAC))
        let asset = AVURLAsset.served(try fixture(.h264AAC), by: delegate)
        XCTAssertTrue(asset.resourceLoader === asset.resourceLoader, "one loader per asset")
        XCTAssertTrue(asset.resourceLoader.delegate === delegate)
        XCTAssertTrue(asset.resourceLoader.delegateQueue === delegate.queue)
        let item = AVPlayerItem(asset: asset)
        let (v, ends) = playToTheEnd(item)
        XCTAssertEqual(ends, 1)
        XCTAssertEqual(item.currentTime(), item.duration)
        XCTAssertEqual(v.frames.indices, (0..<300).map { Optional($0) })
        XCTAssertEqual(Double(v.audio.samples.count / 2), 480_000, accuracy: 1024, "all 10 s of audio")

        // Each opening (the asset's loading, then the item's) starts with a content-information request for the
        // first two bytes; then requests to the end of the resource at the offsets the demuxer read from: the boxes
        // after the first two bytes, the `moov` box at the end (unless its bytes had arrived already: the demuxer's
        // skip over `mdat` then reads through them), the `mdat` payload (the first sample).
        let seen = delegate.seen
        let top = boxes(delegate.bytes)
        let moov = try XCTUnwrap(top.first { $0.type == "moov" }?.offset)
        let mdat = try XCTUnwrap(top.first { $0.type == "mdat" }?.offset)
        let size = Int64(delegate.bytes.count)
        let first = MemoryResourceDelegate.Seen(
            offset: 0, length: 2, toEnd: false, asksForContentInformation: true, range: "bytes=0-1")
        XCTAssertEqual(seen.first, first)
        XCTAssertEqual(seen.filter(\.asksForContentInformation), [first, first], "once per opening: \(seen)")
        for request in seen where !request.asksForContentInformation {
            XCTAssertTrue(request.toEnd)
            XCTAssertEqual(request.length, Int(size - request.offset))
            XCTAssertEqual(request.range, "bytes=\(request.offset)-\(size - 1)")
            XCTAssertTrue([2, moov, mdat + 8].contains(request.offset), "offset \(request.offset) in \(seen)")
        }
        XCTAssertEqual(seen.map(\.offset).filter { $0 != moov }, [0, 2, mdat + 8, 0, 2, mdat + 8], "\(seen)")
        XCTAssertFalse(delegate.calledOffQueue, "delegate methods run on the delegate queue")
    }

    func test_contentInformationAnsweredWithoutBytes_theBytesAreAskedForNext_playsToTheEnd() throws {
        let file = try fixture(.h264AAC)
        let delegate = try MemoryResourceDelegate(file: file, answersInformationWithoutData: true)
        let (v, _) = playToTheEnd(AVPlayerItem(asset: AVURLAsset.served(file, by: delegate)))
        XCTAssertEqual(v.frames.indices, (0..<300).map { Optional($0) })
        // After the content information, the bytes from the start.
        XCTAssertEqual(delegate.seen.prefix(2).map(\.offset), [0, 0], "\(delegate.seen)")
        XCTAssertEqual(delegate.seen.prefix(2).map(\.asksForContentInformation), [true, false])
    }

    func test_exactSeek_makesANewRequestAtALaterOffset_cancelsTheOneInFlight_showsTheTargetFrame() throws {
        let file = try fixture(.h264AAC)
        let bytes = try Data(contentsOf: file)
        let mdat = try XCTUnwrap(boxes(bytes).first { $0.type == "mdat" }?.offset)
        // The first eighth of the media (about 1.2 s) arrives; the rest of a request from before there is held.
        let hold = mdat + Int64(bytes.count) / 8
        let delegate = try MemoryResourceDelegate(file: file, holdFrom: hold)
        let v = VirtualPlayer(mode: .manual)
        let item = AVPlayerItem(asset: AVURLAsset.served(file, by: delegate))
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay || item.status == .failed }
        XCTAssertNil(item.error)
        waitUntil("first frame") { v.frames.entries.count >= 1 }
        XCTAssertEqual(v.frames.indices.first, 0)
        // The playback's request from the first sample on, held: in flight.
        let inFlight = try XCTUnwrap(delegate.offered.last)
        XCTAssertEqual(inFlight.dataRequest?.requestedOffset, mdat + 8)
        XCTAssertFalse(inFlight.isFinished)
        XCTAssertFalse(inFlight.isCancelled)
        let offeredBefore = delegate.offered.count

        exactSeek(item, 7)
        XCTAssertEqual(item.currentTime(), CMTime(seconds: 7, preferredTimescale: 600))
        XCTAssertEqual(v.frames.indices.last ?? nil, 210, "the frame at 7 s")
        let after = delegate.offered.dropFirst(offeredBefore)
        let later = try XCTUnwrap(after.first, "a new request after the seek")
        XCTAssertNil(later.contentInformationRequest)
        XCTAssertGreaterThan(later.dataRequest?.requestedOffset ?? 0, hold, "at the keyframe before 7 s")
        XCTAssertTrue(inFlight.isCancelled)
        XCTAssertFalse(inFlight.isFinished)
        waitUntil("didCancel") { delegate.cancellations(of: inFlight) >= 1 }
        delegate.queue.sync {}
        XCTAssertEqual(delegate.cancellations(of: inFlight), 1, "didCancel once")
        XCTAssertFalse(delegate.calledOffQueue)
        withExtendedLifetime(v) {}
    }

    // MARK: Failures

    /// Plays `asset` and waits until its item fails; returns the item's error.
    private func failure(of asset: AVURLAsset, file: StaticString = #filePath, line: UInt = #line) throws -> NSError {
        let v = VirtualPlayer()
        let item = AVPlayerItem(asset: asset)
        v.player.replaceCurrentItem(with: item)
        waitUntil("failed", file: file, line: line) { item.status != .unknown }
        XCTAssertEqual(item.status, .failed, file: file, line: line)
        let error = try XCTUnwrap(item.error as NSError?, file: file, line: line)
        XCTAssertEqual(error.domain, AVFoundationErrorDomain, file: file, line: line)
        return error
    }

    func test_delegateDeclines_itemFails_contentIsUnavailable() throws {
        let delegate = try MemoryResourceDelegate(file: try fixture(.h264AAC), behaviour: .decline)
        let error = try failure(of: .served(try fixture(.h264AAC), by: delegate))
        XCTAssertEqual(error.code, AVError.Code.contentIsUnavailable.rawValue)
        XCTAssertTrue(error.localizedDescription.contains("declined"), error.localizedDescription)
        XCTAssertEqual(delegate.seen.count, 1, "declined at the first request")
        XCTAssertTrue(delegate.seen.first?.asksForContentInformation ?? false)
    }

    func test_delegateFinishesWithAnError_itemFails_withThatErrorUnderneath() throws {
        let cause = NSError(
            domain: "CacheErrorDomain", code: 7, userInfo: [NSLocalizedDescriptionKey: "The cache is gone."])
        let delegate = try MemoryResourceDelegate(file: try fixture(.h264AAC), behaviour: .fail(cause))
        let error = try failure(of: .served(try fixture(.h264AAC), by: delegate))
        XCTAssertEqual(error.code, AVError.Code.failedToLoadMediaData.rawValue)
        XCTAssertTrue(error.localizedDescription.contains("The cache is gone."), error.localizedDescription)
        let underlying = try XCTUnwrap(error.userInfo[NSUnderlyingErrorKey] as? NSError)
        XCTAssertEqual(underlying.domain, "CacheErrorDomain")
        XCTAssertEqual(underlying.code, 7)
    }

    func test_noDelegate_itemFails_sayingSo() throws {
        let error = try failure(of: .served(try fixture(.h264AAC), by: nil))
        XCTAssertEqual(error.code, AVError.Code.formatUnsupported.rawValue)
        XCTAssertTrue(error.localizedDescription.contains("no delegate"), error.localizedDescription)
    }

    func test_truncatedOrNonMediaBytes_itemFails_sayingWhat() throws {
        for (f, code) in [
            (Fixture.truncated, AVError.Code.fileFormatNotRecognized), (.text, .fileFormatNotRecognized),
        ] {
            let delegate = try MemoryResourceDelegate(file: try fixture(f))
            let error = try failure(of: .served(try fixture(f), by: delegate))
            XCTAssertEqual(error.code, code.rawValue, "\(f): \(error)")
            XCTAssertTrue(error.localizedDescription.contains("cache-file:"), error.localizedDescription)
        }
    }

    func test_streamingPlaylistThroughTheLoader_itemFails_formatUnsupported() throws {
        let playlist = FileManager.default.temporaryDirectory.appendingPathComponent("loader-\(UUID()).m3u8")
        try Data("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nsegment0.ts\n#EXT-X-ENDLIST\n".utf8).write(to: playlist)
        defer { try? FileManager.default.removeItem(at: playlist) }
        let delegate = try MemoryResourceDelegate(file: playlist)
        let error = try failure(of: .served(playlist, by: delegate))
        XCTAssertEqual(error.code, AVError.Code.formatUnsupported.rawValue)
        XCTAssertTrue(error.localizedDescription.contains("HTTP Live Streaming"), error.localizedDescription)
    }

    func test_delegateNeverAnswers_replacingTheItem_cancelsTheRequest_noHang() throws {
        let delegate = try MemoryResourceDelegate(file: try fixture(.h264AAC), behaviour: .silent)
        let v = VirtualPlayer()
        var item: AVPlayerItem? = AVPlayerItem(asset: AVURLAsset.served(try fixture(.h264AAC), by: delegate))
        v.player.replaceCurrentItem(with: item)
        waitUntil("a request") { !delegate.offered.isEmpty }
        let request = delegate.offered[0]
        XCTAssertEqual(item?.status, .unknown)
        v.player.replaceCurrentItem(with: nil)
        settle(v.player)
        item = nil
        waitUntil("cancelled") { request.isCancelled }
        waitUntil("didCancel") { delegate.cancellations(of: request) >= 1 }
        delegate.queue.sync {}
        XCTAssertEqual(delegate.cancellations(of: request), 1)
        XCTAssertFalse(request.isFinished)
        XCTAssertEqual(delegate.offered.count, 1, "no request after the cancellation")
    }

    func test_delegateNeverAnswers_releasingThePlayer_cancelsTheRequest_freesTheEngine() throws {
        let delegate = try MemoryResourceDelegate(file: try fixture(.h264AAC), behaviour: .silent)
        weak var engine: PlayerEngine?
        do {
            let player = AVPlayer()
            player.replaceCurrentItem(with: AVPlayerItem(asset: AVURLAsset.served(try fixture(.h264AAC), by: delegate)))
            engine = player.existingEngine
            waitUntil("a request") { !delegate.offered.isEmpty }
        }
        let request = delegate.offered[0]
        waitUntil("the engine is freed") { engine == nil }
        waitUntil("cancelled") { request.isCancelled }
        waitUntil("didCancel") { delegate.cancellations(of: request) >= 1 }
        delegate.queue.sync {}
        XCTAssertEqual(delegate.cancellations(of: request), 1)
    }

    /// As an app writes it: a plain player, the delegate on its own dispatch queue, a KVO observer of the item's
    /// status; real time (the outcomes are checked, never how long they took).
    func test_realTime_appCode_playsACustomSchemeAssetToItsEnd() throws {
        let file = try fixture(.videoOnly)
        let delegate = try MemoryResourceDelegate(file: file)
        var components = URLComponents(url: file, resolvingAgainstBaseURL: false)!
        components.scheme = "cache-file"
        let asset = AVURLAsset(url: components.url!)
        delegate.markQueue()
        asset.resourceLoader.setDelegate(delegate, queue: delegate.queue)
        let item = AVPlayerItem(asset: asset)
        let player = AVPlayer(playerItem: item)
        player.automaticallyWaitsToMinimizeStalling = false
        let statuses = Locked<[AVPlayerItem.Status]>([])
        let observation = item.observe(\.status, options: [.new]) { item, _ in
            statuses.withLock { $0.append(item.status) }
            if item.status == .readyToPlay { player.play() }
        }
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        // A generous bound: only a hang reaches it.
        waitUntil("end", timeout: 60) { ends.count == 1 || item.status == .failed }
        observation.invalidate()

        XCTAssertNil(item.error)
        XCTAssertEqual(statuses.withLock { $0 }, [.readyToPlay])
        XCTAssertEqual(ends.count, 1)
        XCTAssertEqual(item.currentTime(), item.duration)
        XCTAssertEqual(delegate.seen.first?.asksForContentInformation, true)
        XCTAssertFalse(delegate.calledOffQueue)
        player.replaceCurrentItem(with: nil)
    }

    /// The reader alone (as libavformat drives it): reads, then two seeks before the next read: the bytes read after
    /// them are the file's at the second offset, from a request made there (the one in flight cancelled).
    func test_reader_seekTwiceBeforeReading_readsTheSecondOffsetsBytes() throws {
        let file = try fixture(.h264AAC)
        let delegate = try MemoryResourceDelegate(file: file, holdFrom: 10_000)
        let asset = AVURLAsset.served(file, by: delegate)
        let reader = ResourceLoaderReader(
            loader: asset.resourceLoader, url: asset.url, cancellation: Cancellation(), wake: CustomInputWake())
        var buffer = [UInt8](repeating: 0, count: 4096)
        func read(_ count: Int) throws -> [UInt8] {
            var got: [UInt8] = []
            while got.count < count {
                let n = try buffer.withUnsafeMutableBytes {
                    try reader.read(
                        into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<min($0.count, count - got.count)]))
                }
                XCTAssertGreaterThan(n, 0)
                got += buffer[0..<n]
            }
            return got
        }
        XCTAssertEqual(try read(100), Array(delegate.bytes[0..<100]))
        let first = try XCTUnwrap(delegate.offered.last)
        waitUntil("held") { first.dataRequest?.currentOffset == 10_000 }
        XCTAssertTrue(reader.seek(to: 20_000))
        XCTAssertTrue(reader.seek(to: 20_500))
        XCTAssertEqual(reader.position, 20_500)
        XCTAssertEqual(try read(1000), Array(delegate.bytes[20_500..<21_500]))
        XCTAssertEqual(delegate.seen.map(\.offset), [0, 2, 20_500])
        XCTAssertTrue(first.isCancelled)
        XCTAssertEqual(reader.byteCount, Int64(delegate.bytes.count))
    }
}
