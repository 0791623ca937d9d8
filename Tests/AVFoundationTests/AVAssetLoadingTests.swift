import Synchronization
import TestSupport
import XCTest

@testable import AVFoundation

final class AVAssetLoadingTests: XCTestCase {
    func test_load_durationAndTracks_matchFFprobeExactly() async throws {
        let url = try fixture(.h264AAC)
        let asset = AVURLAsset(url: url)
        let (duration, tracks, playable) = try await asset.load(.duration, .tracks, .isPlayable)
        XCTAssertTrue(playable)
        XCTAssertEqual(tracks.map(\.mediaType), [.video, .audio])
        XCTAssertEqual(tracks.map(\.trackID), [1, 2])

        // Each track's range is the stream's, in the stream's own timescale, and the asset's
        // duration is the longest track's end.
        let probed = try probeStreams(url)
        var longest = CMTime.zero
        for (track, stream) in zip(tracks, probed) {
            let range = try await track.load(.timeRange)
            let den = Int32(stream.time_base.split(separator: "/")[1])!
            XCTAssertEqual(range.duration.timescale, den, "track \(track.trackID) timescale")
            XCTAssertEqual(range.duration.value, stream.duration_ts, "track \(track.trackID) duration")
            XCTAssertEqual(range.start.value, stream.start_pts ?? 0)
            if range.end > longest { longest = range.end }
        }
        XCTAssertEqual(duration, longest)
        XCTAssertEqual(duration.value, longest.value)
        XCTAssertEqual(duration.timescale, longest.timescale)
        XCTAssertEqual(duration.seconds, 10, accuracy: 0.05)
    }

    func test_videoTrack_properties() async throws {
        let asset = AVURLAsset(url: try fixture(.h264AAC))
        let video = try await asset.loadTracks(withMediaType: .video)
        XCTAssertEqual(video.count, 1)
        let (size, fps, transform, reorder, formats) = try await video[0].load(
            .naturalSize, .nominalFrameRate, .preferredTransform, .requiresFrameReordering, .formatDescriptions)
        XCTAssertEqual(size, CGSize(width: 320, height: 240))
        XCTAssertEqual(fps, 30, accuracy: 0.01)
        XCTAssertEqual(transform, .identity)
        XCTAssertTrue(reorder, "the fixture has B-frames")
        XCTAssertEqual(formats.first?.mediaSubType, .h264)
        XCTAssertEqual(formats.first?.mediaType, .video)
        XCTAssertEqual(CMVideoFormatDescriptionGetDimensions(formats[0]), CMVideoDimensions(width: 320, height: 240))
        let minFrame = try await video[0].load(.minFrameDuration)
        XCTAssertEqual(minFrame, CMTime(value: 1, timescale: 30))
        let rate = try await video[0].load(.estimatedDataRate)
        XCTAssertGreaterThan(rate, 0)
    }

    func test_audioTrack_formatDescription() async throws {
        let asset = AVURLAsset(url: try fixture(.h264AAC))
        let audio = try await asset.loadTracks(withMediaType: .audio)
        let formats = try await audio[0].load(.formatDescriptions)
        XCTAssertEqual(formats.first?.mediaSubType, .mpeg4AAC)
        let asbd = try XCTUnwrap(formats.first?.audioStreamBasicDescription)
        XCTAssertEqual(asbd.mSampleRate, 48_000)
        XCTAssertEqual(asbd.mChannelsPerFrame, 2)
        XCTAssertEqual(CMAudioFormatDescriptionGetStreamBasicDescription(formats[0])?.pointee.mSampleRate, 48_000)
        let (volume, characteristics) = try await audio[0].load(.preferredVolume, .mediaCharacteristics)
        XCTAssertEqual(volume, 1)
        XCTAssertEqual(characteristics, [.audible])
        XCTAssertTrue(audio[0].hasMediaCharacteristic(.audible))
    }

    func test_keyValueLoading_statusesAndSingleCompletion() throws {
        let asset = AVURLAsset(url: try fixture(.h264AAC))
        var error: NSError?
        XCTAssertEqual(asset.statusOfValue(forKey: "duration", error: &error), .unknown)
        let calls = Atomic<Int>(0)
        let done = expectation(description: "loaded")
        asset.loadValuesAsynchronously(forKeys: ["duration", "tracks", "playable"]) {
            calls.add(1, ordering: .relaxed)
            done.fulfill()
        }
        // The first load runs in the background: the caller's thread is never blocked.
        wait(for: [done], timeout: 10)
        XCTAssertEqual(calls.load(ordering: .relaxed), 1)
        XCTAssertEqual(asset.statusOfValue(forKey: "duration", error: &error), .loaded)
        XCTAssertEqual(asset.statusOfValue(forKey: "tracks", error: nil), .loaded)
        XCTAssertNil(error)

        // Already loaded: the handler runs synchronously, once.
        var synchronous = false
        asset.loadValuesAsynchronously(forKeys: ["duration"]) { calls.add(1, ordering: .relaxed) }
        synchronous = calls.load(ordering: .relaxed) == 2
        XCTAssertTrue(synchronous)

        XCTAssertEqual(asset.statusOfValue(forKey: "noSuchKey", error: &error), .failed)
        XCTAssertEqual(error?.domain, AVFoundationErrorDomain)
    }

    func test_statusOfProperty_movesFromNotYetLoadedToLoaded() async throws {
        let asset = AVURLAsset(url: try fixture(.audioWAV))
        guard case .notYetLoaded = asset.status(of: .duration) else { return XCTFail("expected notYetLoaded") }
        _ = try await asset.load(.duration)
        guard case .loaded(let d) = asset.status(of: .duration) else { return XCTFail("expected loaded") }
        XCTAssertEqual(d.seconds, 3, accuracy: 0.05)
    }

    func test_cancelLoading_reportsCancelledAndCallsHandlerOnce() throws {
        // A server that accepts and never answers keeps the load pending until it is cancelled.
        let server = try SilentServer()
        defer { server.close() }
        let asset = AVURLAsset(url: URL(string: "http://127.0.0.1:\(server.port)/never.mp4")!)
        let calls = Atomic<Int>(0)
        let done = expectation(description: "handler")
        asset.loadValuesAsynchronously(forKeys: ["duration"]) {
            calls.add(1, ordering: .relaxed)
            done.fulfill()
        }
        XCTAssertEqual(asset.statusOfValue(forKey: "duration", error: nil), .loading)
        asset.cancelLoading()
        wait(for: [done], timeout: 10)
        XCTAssertEqual(asset.statusOfValue(forKey: "duration", error: nil), .cancelled)
        // The cancelled load itself ends (the cancellation interrupts its read): once its block on the loaders' queue
        // has returned, nothing is left that could call the handler again.
        AssetLoader.queue.sync(flags: .barrier) {}
        XCTAssertEqual(calls.load(ordering: .relaxed), 1)
    }

    func test_deprecatedSynchronousGetters_blockUntilLoaded() throws {
        let asset = AVAsset(url: try fixture(.videoOnly))
        XCTAssertEqual(asset.duration.seconds, 3, accuracy: 0.05)
        XCTAssertEqual(asset.tracks.count, 1)
        XCTAssertTrue(asset.isPlayable)
        XCTAssertEqual(asset.tracks(withMediaType: .audio).count, 0)
        XCTAssertEqual(asset.track(withTrackID: asset.tracks[0].trackID), asset.tracks[0])
        XCTAssertTrue(asset.providesPreciseDurationAndTiming)
    }

    func test_tracksHaveStableIdentityAndWeakAsset() async throws {
        let asset = AVURLAsset(url: try fixture(.h264AAC))
        let a = try await asset.load(.tracks)
        let b = try await asset.load(.tracks)
        XCTAssertTrue(a[0] === b[0])
        XCTAssertTrue(a[0].asset === asset)
        XCTAssertEqual(a[0].statusOfValue(forKey: "naturalSize", error: nil), .loaded)
    }
}

/// A TCP listener on loopback that accepts connections and never replies.
final class SilentServer: @unchecked Sendable {
    let port: UInt16
    private let fd: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) }
        }
        guard bound == 0, listen(fd, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
        withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &len) }
        }
        port = UInt16(bigEndian: addr.sin_port)
        _ = self.fd
    }

    func close() { _ = Glibc.close(fd) }
}
