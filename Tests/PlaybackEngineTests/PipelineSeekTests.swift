import CoreMedia
import CoreVideo
import FFmpegBridge
import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

/// Seeks, stream switches, shutdown and resource bounds of the running pipeline.
final class PipelineSeekTests: XCTestCase {
    private func seconds(_ value: Double) -> CMTime {
        CMTime(value: Int64((value * 90_000).rounded()), timescale: 90_000)
    }

    /// Requests a seek and pumps until `videoCount` video and `audioCount` audio frames of the serials after it
    /// arrived; returns them (frames of older serials, still in flight, are not returned).
    private func seek(
        _ harness: PipelineHarness, to target: CMTime, accurate: Bool = false, videoCount: Int, audioCount: Int = 1
    ) -> (video: [VideoFrame], audio: [AudioFrame]) {
        let oldVideo = harness.video?.packets.serial ?? .initial
        let oldAudio = harness.audio?.packets.serial ?? .initial
        harness.demuxer.seek(to: target, accurate: accurate)
        // Until the demux thread performs the seek, a finished pipeline still looks finished.
        func performed() -> Bool {
            harness.video.map { $0.packets.serial != oldVideo } ?? harness.audio.map { $0.packets.serial != oldAudio }
                ?? true
        }
        Poll.until(performed)
        var video: [VideoFrame] = []
        var audio: [AudioFrame] = []
        harness.pump(
            video: { if $0.serial > oldVideo { video.append($0) } },
            audio: { if $0.serial > oldAudio { audio.append($0) } },
            until: { video.count >= videoCount && audio.count >= audioCount })
        return (video, audio)
    }

    func test_seek_bumpsSerials_dropsStaleFrames_andLandsOnThePrecedingKeyframe() throws {
        let harness = try PipelineHarness(.h264AAC)
        let reported = Locked<[Int: Serial]>([:])
        harness.demuxer.onSeek = { _, serials in reported.withLock { $0 = serials } }
        harness.start()
        var before: [VideoFrame] = []
        harness.pump(video: { before.append($0) }, until: { (before.last?.pts.seconds ?? 0) >= 2 })
        let video = try XCTUnwrap(harness.video)
        let audioPipe = try XCTUnwrap(harness.audio)
        let oldVideo = video.packets.serial
        let oldAudio = audioPipe.packets.serial
        // Stop consuming until the decoders filled the rings: those frames are stale once the seek happens.
        Poll.until { video.frames.count >= video.frames.capacity }
        XCTAssertEqual(video.frames.count, video.frames.capacity, "frames of the old serial are in flight")
        XCTAssertTrue(video.frames.peek().map { $0.serial == oldVideo } ?? false)

        let (after, audio) = seek(harness, to: seconds(6.5), videoCount: 30)
        XCTAssertGreaterThan(video.packets.serial, oldVideo)
        XCTAssertGreaterThan(audioPipe.packets.serial, oldAudio)
        XCTAssertEqual(reported.current[video.packets.streamIndex], video.packets.serial)
        XCTAssertTrue(after.allSatisfy { $0.serial == video.packets.serial })
        XCTAssertTrue(audio.allSatisfy { $0.serial == audioPipe.packets.serial })
        // 2 s GOPs: 6.5 s lies in the GOP starting at frame 180 (6.0 s).
        XCTAssertEqual(after.prefix(30).map { frameIndex(of: $0.pixelBuffer) ?? -1 }, Array(180..<210))
        XCTAssertEqual(try XCTUnwrap(after.first).pts.seconds, 6.0, accuracy: 1e-9)
        XCTAssertTrue(try XCTUnwrap(after.first).isKeyframe)
        let firstAudio = try XCTUnwrap(audio.first).pts.seconds
        XCTAssertLessThanOrEqual(firstAudio, 6.05)
        XCTAssertGreaterThan(firstAudio, 5.5)
        XCTAssertTrue(harness.events.current.contains { if case .seekCompleted = $0 { true } else { false } })
    }

    func test_accurateSeek_deliversTheTargetFrameFirst_andTrimsAudioToTheTarget() throws {
        let harness = try PipelineHarness(.h264AAC)
        harness.start()
        var seen = 0
        harness.pump(video: { _ in seen += 1 }, until: { seen >= 10 })

        // Exactly on frame 195 (6.5 s), then between frames 105 (3.5 s) and 106.
        for (target, expected) in [(6.5, 195), (3.51, 105)] {
            let (video, audio) = seek(harness, to: seconds(target), accurate: true, videoCount: 3)
            XCTAssertEqual(
                video.prefix(3).map { frameIndex(of: $0.pixelBuffer) ?? -1 }, Array(expected..<(expected + 3)))
            XCTAssertEqual(try XCTUnwrap(video.first).pts.seconds, Double(expected) / 30, accuracy: 1e-9)
            let firstAudio = try XCTUnwrap(audio.first)
            XCTAssertEqual(firstAudio.pts.seconds, target, accuracy: 1.0 / 48_000)
            XCTAssertGreaterThan(harness.video?.decoder.status.framesDropped ?? 0, 0)
        }
    }

    func test_decoderDropTarget_setBeforeASeek_appliesToTheNextSerial() throws {
        let harness = try PipelineHarness(.h264AAC)
        harness.start()
        var seen = 0
        harness.pump(video: { _ in seen += 1 }, until: { seen >= 5 })
        let target = seconds(4.0)
        harness.video?.decoder.dropFramesBefore = target
        harness.audio?.decoder.dropFramesBefore = target
        let (video, audio) = seek(harness, to: target, videoCount: 2)
        XCTAssertEqual(video.prefix(2).map { frameIndex(of: $0.pixelBuffer) ?? -1 }, [120, 121])
        XCTAssertEqual(try XCTUnwrap(audio.first).pts.seconds, 4.0, accuracy: 1.0 / 48_000)
    }

    func test_seekAfterTheEnd_resumesReading() throws {
        let harness = try PipelineHarness(.videoOnly, audio: false)
        harness.start()
        XCTAssertEqual(harness.decodeAll().outcome, .finished)
        XCTAssertTrue(harness.demuxer.isAtEndOfFile)
        XCTAssertEqual(try XCTUnwrap(harness.demuxer.bufferedEnd).seconds, 3, accuracy: 0.05)

        let (video, _) = seek(harness, to: seconds(1.0), accurate: true, videoCount: 1, audioCount: 0)
        XCTAssertEqual(video.first.map { frameIndex(of: $0.pixelBuffer) }, 30)
        var rest: [Int] = video.map { frameIndex(of: $0.pixelBuffer) ?? -1 }
        XCTAssertEqual(harness.pump(video: { rest.append(frameIndex(of: $0.pixelBuffer) ?? -1) }), .finished)
        XCTAssertEqual(rest, Array(30..<90))
    }

    func test_skipNonKeyFrames_decodesKeyframesOnly() throws {
        let harness = try PipelineHarness(.h264AAC, audio: false)
        harness.video?.decoder.skipNonKeyFrames = true
        harness.start()
        let (video, _, outcome) = harness.decodeAll()
        XCTAssertEqual(outcome, .finished)
        XCTAssertEqual(video.map { frameIndex(of: $0.pixelBuffer) ?? -1 }, [0, 60, 120, 180, 240])
    }

    func test_setStreams_switchesTheAudioTrackMidPlay() throws {
        let url = try Fixtures.url(.multiAudioSubtitles)
        let format = FFmpegSource(url: url)
        try format.open()
        let audioStreams = format.info.streams.filter { $0.kind == .audio }
        XCTAssertEqual(audioStreams.count, 2)
        func makeAudio(_ stream: StreamInfo) throws -> AudioPipe {
            let packets = PacketQueue(streamIndex: stream.index, timeBase: stream.timeBase)
            let frames = FrameQueue<AudioFrame>(capacity: 9)
            let decoder = try AudioDecoder(
                parameters: format.codecParameters(stream: stream.index), timeBase: stream.timeBase, packets: packets,
                frames: frames, outputFormat: .standard)
            return AudioPipe(packets: packets, frames: frames, decoder: decoder)
        }
        let english = try makeAudio(audioStreams[0])
        let french = try makeAudio(audioStreams[1])
        let demuxer = Demuxer(
            source: format, streams: [english.packets.streamIndex: english.packets],
            limits: BufferLimits(maxDuration: 0.5))
        english.decoder.start()
        french.decoder.start()
        demuxer.start()
        defer {
            demuxer.stop()
            english.decoder.stop()
            french.decoder.stop()
        }
        func collect(_ pipe: AudioPipe, frames count: Int) -> [AudioFrame] {
            var frames: [AudioFrame] = []
            // Each look waits for the queue to become readable (an event); only the hang guard bounds the whole.
            Poll.until(every: 0) {
                if let (frame, _) = pipe.frames.pop() {
                    frames.append(frame)
                } else {
                    _ = pipe.frames.waitUntilReadable(timeout: 0.01)
                }
                return frames.count >= count
            }
            return frames
        }
        let englishFrames = collect(english, frames: 20)
        demuxer.setStreams([french.packets.streamIndex: french.packets])
        let frenchFrames = collect(french, frames: 40)
        XCTAssertEqual(frenchFrames.count, 40)
        let left = ToneAnalyzer.deinterleave(interleavedSamples(Array(frenchFrames.suffix(30))), channelCount: 2)
        XCTAssertEqual(ToneAnalyzer.dominantFrequency(of: left[0], sampleRate: 48_000) ?? 0, 550, accuracy: 3)
        XCTAssertEqual(ToneAnalyzer.dominantFrequency(of: left[1], sampleRate: 48_000) ?? 0, 770, accuracy: 4)
        let english0 = ToneAnalyzer.deinterleave(interleavedSamples(englishFrames), channelCount: 2)[0]
        XCTAssertEqual(ToneAnalyzer.dominantFrequency(of: english0, sampleRate: 48_000) ?? 0, 440, accuracy: 3)
    }

    func test_stop_returnsPromptly_whileEveryThreadIsBlocked() throws {
        let harness = try PipelineHarness(.h264AAC, limits: BufferLimits(maxBytes: 64 * 1024, maxDuration: 1))
        harness.start()
        // Nobody consumes: the frame queues fill, the decoders block in push, the demuxer sleeps on its limits.
        // (The decoders wait for room in turns of 10 ms, polling whether a seek made their frame stale: each is seen
        // inside a wait at some moment; the demuxer's waits are counted. No event tells of them: ``Poll``, looking
        // again at once, bounded by the hang guard.)
        let idleBefore = harness.demuxer.idleWaitCount
        var (videoBlocked, audioBlocked, demuxerIdle) = (false, false, false)
        Poll.until(every: 0) {
            videoBlocked = videoBlocked || harness.video?.frames.waitingWriterCount == 1
            audioBlocked = audioBlocked || harness.audio?.frames.waitingWriterCount == 1
            demuxerIdle = harness.demuxer.idleWaitCount >= idleBefore + 2
            return videoBlocked && audioBlocked && demuxerIdle
        }
        XCTAssertTrue(videoBlocked, "the video decoder waits for room")
        XCTAssertTrue(audioBlocked, "the audio decoder waits for room")
        XCTAssertTrue(demuxerIdle, "the demuxer waits on its limits")
        XCTAssertEqual(harness.video?.frames.count, FrameQueue<VideoFrame>.videoCapacity)
        XCTAssertEqual(harness.audio?.frames.count, FrameQueue<AudioFrame>.audioCapacity)
        XCTAssertGreaterThan(harness.video?.packets.count ?? 0, 0)
        let bytes = harness.demuxer.bytesRead
        XCTAssertLessThan(bytes, 400_000, "back-pressure stopped the reader before the end")
        XCTAssertFalse(harness.demuxer.isAtEndOfFile)
        // Stopping wakes the blocked decoders and the idle demuxer: a thread left waiting for room would keep stop()
        // from returning at all, so the bound (the hang guard) only tells a hang from a slow machine.
        let started = Date()
        harness.stop()
        XCTAssertLessThan(
            Date().timeIntervalSince(started), Awaitable<Void>.hangGuard, "stop() woke the threads waiting for room")
    }

    func test_pools_stayBounded_overAFullDecode() throws {
        let harness = try PipelineHarness(.h264AAC, limits: BufferLimits(maxDuration: 0.5))
        harness.start()
        var videoFrames = 0
        var audioFrames = 0
        let outcome = harness.pump(
            inTimeOrder: true, video: { _ in videoFrames += 1 }, audio: { _ in audioFrames += 1 })
        XCTAssertEqual(outcome, .finished)
        XCTAssertEqual(videoFrames, 300)
        let video = try XCTUnwrap(harness.video)
        let audio = try XCTUnwrap(harness.audio)
        // The reader stays about 25 packets (or 0.5 s) ahead of each decoder; the pools stop growing there.
        XCTAssertLessThan(video.packets.pool.statistics.allocationCount, 60, "\(video.packets.pool.statistics)")
        XCTAssertLessThan(audio.packets.pool.statistics.allocationCount, 60, "\(audio.packets.pool.statistics)")
        let samples = audio.decoder.bufferPool.statistics
        XCTAssertLessThanOrEqual(samples.allocationCount, FrameQueue<AudioFrame>.audioCapacity + 4, "\(samples)")
        XCTAssertGreaterThan(audioFrames, 400)
        XCTAssertEqual(samples.outstandingCount, 0)
    }

    func test_wrappedPixelBuffers_stayValid_afterTheDecoderMovedOn() throws {
        let harness = try PipelineHarness(.h264AAC, audio: false)
        harness.start()
        var held: [CVPixelBuffer] = []
        var later = 0
        harness.pump(
            video: { frame in
                if held.count < 5 { held.append(frame.pixelBuffer) } else { later += 1 }
            }, until: { later >= 120 })
        XCTAssertEqual(held.map { frameIndex(of: $0) ?? -1 }, Array(0..<5))
        harness.stop()
        XCTAssertEqual(held.map { frameIndex(of: $0) ?? -1 }, Array(0..<5), "still valid after the decoder is gone")
    }
}
