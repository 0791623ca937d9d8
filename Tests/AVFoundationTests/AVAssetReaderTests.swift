import AVFoundation
import OAVFLocking
import TestSupport
import XCTest

/// AVAssetReader against the fixtures: frame indices read from the pixels, audio compared byte for byte with the
/// `ffmpeg` tool's own decode, packet counts with ffprobe's.
final class AVAssetReaderTests: XCTestCase {
    // MARK: Helpers

    /// A reader of `f` with one output made by `makeOutput` from the asset's first track of `type`.
    private func reader(
        _ f: Fixture, _ type: AVMediaType, _ makeOutput: (AVAssetTrack) -> AVAssetReaderOutput
    ) throws -> (AVAssetReader, AVAssetReaderOutput) {
        let asset = AVURLAsset(url: try fixture(f))
        let reader = try AVAssetReader(asset: asset)
        let track = try XCTUnwrap(asset.tracks(withMediaType: type).first, "\(f.rawValue) has no \(type.rawValue)")
        let output = makeOutput(track)
        XCTAssertTrue(reader.canAdd(output))
        reader.add(output)
        return (reader, output)
    }

    /// The frame index drawn on a BGRA or luma-first picture.
    private func frameIndex(_ buffer: CVPixelBuffer) -> Int? {
        CVPixelBufferLockBaseAddress(buffer, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
        let width = CVPixelBufferGetWidth(buffer)
        let height = CVPixelBufferGetHeight(buffer)
        if CVPixelBufferGetPixelFormatType(buffer) == kCVPixelFormatType_32BGRA {
            guard let base = CVPixelBufferGetBaseAddress(buffer) else { return nil }
            return FrameIndexReader.read(
                pixels: base, layout: .bgra, width: width, height: height,
                bytesPerRow: CVPixelBufferGetBytesPerRow(buffer))?.index
        }
        guard let luma = CVPixelBufferGetBaseAddressOfPlane(buffer, 0) else { return nil }
        return FrameIndexReader.read(
            luma: luma, width: width, height: height, bytesPerRow: CVPixelBufferGetBytesPerRowOfPlane(buffer, 0))?.index
    }

    /// Every sample buffer `output` hands out.
    private func readAll(_ output: AVAssetReaderOutput) -> [CMSampleBuffer] {
        var samples: [CMSampleBuffer] = []
        while let sample = output.copyNextSampleBuffer() { samples.append(sample) }
        return samples
    }

    /// The bytes of every data sample buffer, concatenated.
    private func bytes(_ samples: [CMSampleBuffer]) throws -> Data {
        var data = Data()
        for sample in samples {
            let block = try XCTUnwrap(CMSampleBufferGetDataBuffer(sample))
            var chunk = Data(count: CMBlockBufferGetDataLength(block))
            let status = chunk.withUnsafeMutableBytes {
                CMBlockBufferCopyDataBytes(block, atOffset: 0, dataLength: $0.count, destination: $0.baseAddress!)
            }
            XCTAssertEqual(status, kCMBlockBufferNoErr)
            data.append(chunk)
        }
        return data
    }

    /// `ffmpeg`'s decode of `f`'s first audio stream to raw `format` (`s16le`, `f32le`).
    private func ffmpegAudio(_ f: Fixture, format: String, stream: Int = 0) throws -> Data {
        let result = try Subprocess.run(
            "ffmpeg",
            ["-nostdin", "-v", "error", "-i", try fixture(f).path, "-map", "0:a:\(stream)", "-f", format, "-"],
            timeout: 120)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdoutData
    }

    // MARK: Video

    func test_videoBGRA_everyFrameOnceInOrder() throws {
        let (reader, output) = try reader(.h264AAC, .video) {
            AVAssetReaderTrackOutput(
                track: $0, outputSettings: [kCVPixelBufferPixelFormatTypeKey: Int(kCVPixelFormatType_32BGRA)])
        }
        XCTAssertEqual(reader.status, .unknown)
        XCTAssertTrue(reader.startReading())
        XCTAssertEqual(reader.status, .reading)
        let samples = readAll(output)
        XCTAssertEqual(reader.status, .completed, "\(String(describing: reader.error))")
        XCTAssertNil(reader.error)
        let frameCount = try XCTUnwrap(Fixture.h264AAC.facts.video?.frameCount)
        XCTAssertEqual(
            samples.compactMap { frameIndex(try! XCTUnwrap(CMSampleBufferGetImageBuffer($0))) },
            Array(0..<frameCount))
        var previous = CMTime.negativeInfinity
        for sample in samples {
            XCTAssertEqual(CMSampleBufferGetNumSamples(sample), 1)
            XCTAssertTrue(CMSampleBufferIsValid(sample))
            XCTAssertNil(CMSampleBufferGetDataBuffer(sample))
            let pts = CMSampleBufferGetPresentationTimeStamp(sample)
            XCTAssertGreaterThan(pts, previous)
            previous = pts
            XCTAssertEqual(sample.duration.seconds, 1.0 / 30, accuracy: 1e-6)
            let format = try XCTUnwrap(CMSampleBufferGetFormatDescription(sample))
            XCTAssertEqual(CMFormatDescriptionGetMediaType(format), kCMMediaType_Video)
            XCTAssertEqual(CMFormatDescriptionGetMediaSubType(format), kCVPixelFormatType_32BGRA)
            XCTAssertEqual(CMVideoFormatDescriptionGetDimensions(format), CMVideoDimensions(width: 320, height: 240))
        }
        XCTAssertNil(output.copyNextSampleBuffer(), "nothing after the end")
    }

    func test_videoNativeAnd420v_everyFrameOnceInOrder() throws {
        for settings: [String: Any] in [
            [:], [kCVPixelBufferPixelFormatTypeKey: Int(kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)],
        ] {
            let (reader, output) = try reader(.videoOnly, .video) {
                AVAssetReaderTrackOutput(track: $0, outputSettings: settings)
            }
            output.alwaysCopiesSampleData = false
            XCTAssertTrue(reader.startReading())
            let samples = readAll(output)
            XCTAssertEqual(reader.status, .completed)
            let frameCount = try XCTUnwrap(Fixture.videoOnly.facts.video?.frameCount)
            XCTAssertEqual(samples.compactMap { $0.imageBuffer.flatMap(frameIndex) }, Array(0..<frameCount))
            let expected =
                settings.isEmpty ? kCVPixelFormatType_420YpCbCr8Planar : kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange
            XCTAssertEqual(samples.first?.imageBuffer.map(CVPixelBufferGetPixelFormatType), expected)
        }
    }

    func test_video10BitX420_everyFrameOnceInOrder_withTheTenBits() throws {
        let (reader, output) = try reader(.hdr10HEVC, .video) {
            AVAssetReaderTrackOutput(
                track: $0,
                outputSettings: [
                    kCVPixelBufferPixelFormatTypeKey: Int(kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange)
                ])
        }
        XCTAssertTrue(reader.startReading())
        let buffers = try readAll(output).map { try XCTUnwrap(CMSampleBufferGetImageBuffer($0)) }
        XCTAssertEqual(reader.status, .completed, "\(String(describing: reader.error))")
        XCTAssertTrue(
            buffers.allSatisfy {
                CVPixelBufferGetPixelFormatType($0) == kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange
            })
        // The index from the 16-bit luma words (the 10 bits on top); some samples between two 8-bit codes.
        var between = 0
        let indices = buffers.map { buffer -> Int? in
            CVPixelBufferLockBaseAddress(buffer, .readOnly)
            defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
            guard let luma = CVPixelBufferGetBaseAddressOfPlane(buffer, 0) else { return nil }
            let stride = CVPixelBufferGetBytesPerRowOfPlane(buffer, 0)
            return FrameIndexReader.read(width: 320, height: 240) { x, y in
                let word = UInt16(littleEndian: luma.loadUnaligned(fromByteOffset: y * stride + 2 * x, as: UInt16.self))
                if (word >> 6) % 4 != 0 { between += 1 }
                return Double(word) / 257
            }?.index
        }
        XCTAssertEqual(indices, Array(0..<60).map { $0 })
        XCTAssertGreaterThan(between, 0, "10-bit samples, not 8-bit ones widened")
    }

    func test_timeRange_firstAndLastFrames() throws {
        let (reader, output) = try reader(.h264AAC, .video) {
            AVAssetReaderTrackOutput(
                track: $0, outputSettings: [kCVPixelBufferPixelFormatTypeKey: Int(kCVPixelFormatType_32BGRA)])
        }
        reader.timeRange = CMTimeRange(start: CMTime(value: 3, timescale: 1), duration: CMTime(value: 1, timescale: 1))
        XCTAssertTrue(reader.startReading())
        let indices = readAll(output).compactMap { $0.imageBuffer.flatMap(frameIndex) }
        XCTAssertEqual(reader.status, .completed)
        XCTAssertEqual(indices, Array(90..<120))
    }

    // MARK: Audio

    func test_audioS16_bitIdenticalToFFmpeg() throws {
        let (reader, output) = try reader(.h264AAC, .audio) {
            AVAssetReaderTrackOutput(
                track: $0,
                outputSettings: [
                    AVFormatIDKey: Int(kAudioFormatLinearPCM), AVLinearPCMBitDepthKey: 16, AVLinearPCMIsFloatKey: false,
                    AVLinearPCMIsNonInterleaved: false, AVLinearPCMIsBigEndianKey: false,
                ])
        }
        XCTAssertTrue(reader.startReading())
        let samples = readAll(output)
        XCTAssertEqual(reader.status, .completed, "\(String(describing: reader.error))")
        let ours = try bytes(samples)
        let reference = try ffmpegAudio(.h264AAC, format: "s16le")
        XCTAssertGreaterThan(reference.count, 48_000 * 4 * 9)
        XCTAssertEqual(ours.count, reference.count)
        XCTAssertTrue(ours == reference, "PCM differs from ffmpeg's decode")
        let asbd = try XCTUnwrap(
            CMAudioFormatDescriptionGetStreamBasicDescription(try XCTUnwrap(samples.first?.formatDescription))
        ).pointee
        XCTAssertEqual(asbd.mFormatID, kAudioFormatLinearPCM)
        XCTAssertEqual(asbd.mSampleRate, 48_000)
        XCTAssertEqual(asbd.mChannelsPerFrame, 2)
        XCTAssertEqual(asbd.mBitsPerChannel, 16)
        XCTAssertEqual(asbd.mBytesPerFrame, 4)
        XCTAssertEqual(asbd.mFormatFlags & kAudioFormatFlagIsSignedInteger, kAudioFormatFlagIsSignedInteger)
        XCTAssertEqual(samples.reduce(0) { $0 + CMSampleBufferGetNumSamples($1) } * 4, ours.count)
        XCTAssertEqual(samples.reduce(0) { $0 + CMSampleBufferGetTotalSampleSize($1) }, ours.count)
        // Contiguous timing: each buffer starts where the previous one ended.
        for (a, b) in zip(samples, samples.dropFirst()) {
            XCTAssertEqual(a.presentationTimeStamp + a.duration, b.presentationTimeStamp)
        }
    }

    func test_audioFloat_bitIdenticalToFFmpeg() throws {
        let (reader, output) = try reader(.audioFLAC, .audio) {
            AVAssetReaderTrackOutput(
                track: $0,
                outputSettings: [
                    AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true,
                ])
        }
        XCTAssertTrue(reader.startReading())
        let ours = try bytes(readAll(output))
        XCTAssertEqual(reader.status, .completed)
        let reference = try ffmpegAudio(.audioFLAC, format: "f32le")
        XCTAssertGreaterThan(reference.count, 0)
        XCTAssertTrue(ours == reference, "PCM differs from ffmpeg's decode (\(ours.count) vs \(reference.count) bytes)")
    }

    /// `f`'s first audio track as 16-bit PCM over `range`.
    private func pcm16(_ f: Fixture, range: CMTimeRange) throws -> [CMSampleBuffer] {
        let (reader, output) = try reader(f, .audio) {
            AVAssetReaderTrackOutput(track: $0, outputSettings: [AVFormatIDKey: kAudioFormatLinearPCM])
        }
        reader.timeRange = range
        XCTAssertTrue(reader.startReading())
        let samples = readAll(output)
        XCTAssertEqual(reader.status, .completed, "\(String(describing: reader.error))")
        return samples
    }

    func test_audioTimeRange_trimmedToTheSample() throws {
        let range = CMTimeRange(start: CMTime(value: 2, timescale: 1), duration: CMTime(value: 1, timescale: 2))
        let aac = try pcm16(.h264AAC, range: range)
        XCTAssertEqual(aac.first?.presentationTimeStamp, CMTime(value: 96_000, timescale: 48_000))
        XCTAssertEqual(try bytes(aac).count, 24_000 * 4)
        // Lossless audio decodes the same after a seek, so the trimmed samples are the whole decode's at the same
        // offsets. (AAC's noise substitution draws from a generator whose state a seek changes: after a seek its
        // noise bands differ from a decode from the start, on any decoder.)
        let flac = try pcm16(.audioFLAC, range: range)
        let rate = try XCTUnwrap(flac.first?.formatDescription?.audioStreamBasicDescription?.mSampleRate)
        let first = Int(rate) * 2
        let count = Int(rate) / 2
        XCTAssertEqual(flac.first?.presentationTimeStamp, CMTime(value: Int64(first), timescale: Int32(rate)))
        let ours = try bytes(flac)
        let whole = try ffmpegAudio(.audioFLAC, format: "s16le")
        XCTAssertEqual(ours.count, count * 4)
        XCTAssertTrue(
            ours == whole[(first * 4)..<((first + count) * 4)], "the trimmed PCM is ffmpeg's at the same offsets")
    }

    func test_audioMix_silencedTrackLeavesTheOther() throws {
        let asset = AVURLAsset(url: try fixture(.multiAudioSubtitles))
        let tracks = asset.tracks(withMediaType: .audio)
        XCTAssertEqual(tracks.count, 2)
        let settings: [String: Any] = [
            AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true,
        ]

        let mixReader = try AVAssetReader(asset: asset)
        let mixOutput = AVAssetReaderAudioMixOutput(audioTracks: tracks, audioSettings: settings)
        let mix = AVMutableAudioMix()
        let silent = AVMutableAudioMixInputParameters(track: tracks[1])
        silent.setVolume(0, at: .zero)
        mix.inputParameters = [silent]
        mixOutput.audioMix = mix
        mixReader.add(mixOutput)
        XCTAssertTrue(mixReader.startReading())
        let mixed = try bytes(readAll(mixOutput))
        XCTAssertEqual(mixReader.status, .completed)

        let soloReader = try AVAssetReader(asset: asset)
        let solo = AVAssetReaderTrackOutput(track: tracks[0], outputSettings: settings)
        soloReader.add(solo)
        XCTAssertTrue(soloReader.startReading())
        let alone = try bytes(readAll(solo))
        XCTAssertGreaterThan(alone.count, 48_000 * 8 * 4)
        // Compared as numbers: a silent track's +0 turns the first track's -0 samples into +0.
        XCTAssertEqual(
            ReferenceDecoder.floats(fromLittleEndian: mixed), ReferenceDecoder.floats(fromLittleEndian: alone),
            "a mix with the second track silenced is the first track")
    }

    // MARK: Compressed samples

    func test_nilSettings_storedSamplesMatchFFprobesPackets() throws {
        let url = try fixture(.h264AAC)
        for (type, stream) in [(AVMediaType.video, "v:0"), (.audio, "a:0")] {
            let (reader, output) = try reader(.h264AAC, type) {
                AVAssetReaderTrackOutput(track: $0, outputSettings: nil)
            }
            XCTAssertTrue(reader.startReading())
            let samples = readAll(output)
            XCTAssertEqual(reader.status, .completed)
            let packets = try ProbeReport.packetTimes(url, stream: stream)
            XCTAssertEqual(samples.count, packets.count, type.rawValue)
            var previousDTS = CMTime.negativeInfinity
            for sample in samples {
                XCTAssertNil(sample.imageBuffer)
                XCTAssertGreaterThan(sample.totalSampleSize, 0)
                XCTAssertEqual(sample.dataBuffer?.dataLength, sample.totalSampleSize)
                let dts = sample.decodeTimeStamp.isValid ? sample.decodeTimeStamp : sample.presentationTimeStamp
                XCTAssertGreaterThanOrEqual(dts, previousDTS, "decode order")
                previousDTS = dts
            }
            let subType = samples.first?.formatDescription?.mediaSubType
            XCTAssertEqual(subType, type == .video ? .h264 : .mpeg4AAC)
        }
    }

    // MARK: Cancel and failures

    func test_cancelReading_midway() throws {
        let (reader, output) = try reader(.h264AAC, .video) {
            AVAssetReaderTrackOutput(track: $0, outputSettings: [:])
        }
        XCTAssertTrue(reader.startReading())
        for expected in 0..<10 {
            let sample = try XCTUnwrap(output.copyNextSampleBuffer())
            XCTAssertEqual(sample.imageBuffer.flatMap(frameIndex), expected)
        }
        reader.cancelReading()
        XCTAssertEqual(reader.status, .cancelled)
        XCTAssertNil(output.copyNextSampleBuffer())
        XCTAssertNil(reader.error)
    }

    func test_truncatedFile_failsCleanly() throws {
        let (reader, output) = try reader(.truncatedFaststart, .video) {
            AVAssetReaderTrackOutput(track: $0, outputSettings: [:])
        }
        XCTAssertTrue(reader.startReading())
        let samples = readAll(output)
        XCTAssertGreaterThan(samples.count, 30, "the frames before the cut are read")
        XCTAssertEqual(reader.status, .failed)
        let error = try XCTUnwrap(reader.error) as NSError
        XCTAssertEqual(error.domain, AVFoundationErrorDomain)
        XCTAssertEqual(error.code, AVError.Code.fileFailedToParse.rawValue)
        XCTAssertNil(output.copyNextSampleBuffer())
    }

    func test_unopenableFile_initThrows() throws {
        let asset = AVURLAsset(url: try fixture(.truncated))
        XCTAssertThrowsError(try AVAssetReader(asset: asset)) { error in
            XCTAssertEqual((error as NSError).domain, AVFoundationErrorDomain)
        }
    }

    // MARK: More than one output, other inputs

    func test_videoAndAudioOutputs_readInterleaved_completeTogether() throws {
        let asset = AVURLAsset(url: try fixture(.h264AAC))
        let reader = try AVAssetReader(asset: asset)
        let video = AVAssetReaderTrackOutput(
            track: try XCTUnwrap(asset.tracks(withMediaType: .video).first), outputSettings: [:])
        let audio = AVAssetReaderTrackOutput(
            track: try XCTUnwrap(asset.tracks(withMediaType: .audio).first),
            outputSettings: [AVFormatIDKey: kAudioFormatLinearPCM])
        reader.add(video)
        reader.add(audio)
        XCTAssertEqual(reader.outputs.count, 2)
        XCTAssertTrue(reader.startReading())
        var indices: [Int] = []
        var audioFrames = 0
        var videoDone = false
        var audioDone = false
        while !(videoDone && audioDone) {
            if !videoDone {
                if let sample = video.copyNextSampleBuffer() {
                    indices.append(sample.imageBuffer.flatMap(frameIndex) ?? -1)
                } else {
                    videoDone = true
                    XCTAssertEqual(reader.status, .reading, "the audio output still has samples")
                }
            }
            if !audioDone {
                if let sample = audio.copyNextSampleBuffer() {
                    audioFrames += sample.numSamples
                } else {
                    audioDone = true
                }
            }
        }
        XCTAssertEqual(reader.status, .completed)
        XCTAssertEqual(indices, Array(0..<300))
        XCTAssertEqual(audioFrames * 4, try ffmpegAudio(.h264AAC, format: "s16le").count)
    }

    func test_transportStream_keepsItsTimestamps() throws {
        let (reader, output) = try reader(.h264AACTS, .video) {
            AVAssetReaderTrackOutput(track: $0, outputSettings: [:])
        }
        XCTAssertTrue(reader.startReading())
        let samples = readAll(output)
        XCTAssertEqual(reader.status, .completed)
        XCTAssertEqual(samples.compactMap { $0.imageBuffer.flatMap(frameIndex) }, Array(0..<90))
        // The stream's own first timestamp (ffprobe: start_time 1.466667), not re-based to zero.
        XCTAssertEqual(try XCTUnwrap(samples.first).presentationTimeStamp.seconds, 1.466_667, accuracy: 1e-5)
    }

    func test_resampledMono_lengthFollowsTheRate() throws {
        let (reader, output) = try reader(.audioWAV, .audio) {
            AVAssetReaderTrackOutput(
                track: $0,
                outputSettings: [
                    AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 22_050.0, AVNumberOfChannelsKey: 1,
                    AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true, AVLinearPCMIsBigEndianKey: true,
                ])
        }
        XCTAssertTrue(reader.startReading())
        let samples = readAll(output)
        XCTAssertEqual(reader.status, .completed)
        let asbd = try XCTUnwrap(samples.first?.formatDescription?.audioStreamBasicDescription)
        XCTAssertEqual(asbd.mSampleRate, 22_050)
        XCTAssertEqual(asbd.mChannelsPerFrame, 1)
        XCTAssertEqual(asbd.mFormatFlags & kAudioFormatFlagIsBigEndian, kAudioFormatFlagIsBigEndian)
        let frames = samples.reduce(0) { $0 + $1.numSamples }
        XCTAssertEqual(Double(frames), 3 * 22_050, accuracy: 64, "3 s at 22 050 Hz")
        // Big-endian floats: the loudest sample of a 0.5-amplitude tone pair mixed to mono is about 0.5.
        let data = try bytes(samples)
        var peak: Float = 0
        for i in stride(from: 0, to: data.count - 3, by: 4) {
            let word =
                UInt32(data[i]) << 24 | UInt32(data[i + 1]) << 16 | UInt32(data[i + 2]) << 8 | UInt32(data[i + 3])
            peak = max(peak, abs(Float(bitPattern: word)))
        }
        XCTAssertGreaterThan(peak, 0.3)
        XCTAssertLessThan(peak, 1.01)
    }

    // MARK: Random access

    func test_resetForReadingTimeRanges_readsEachRange() throws {
        let (reader, output) = try reader(.h264AAC, .video) {
            AVAssetReaderTrackOutput(track: $0, outputSettings: [:])
        }
        output.supportsRandomAccess = true
        reader.timeRange = CMTimeRange(start: .zero, duration: CMTime(value: 1, timescale: 3))
        XCTAssertTrue(reader.startReading())
        XCTAssertEqual(readAll(output).compactMap { $0.imageBuffer.flatMap(frameIndex) }, Array(0..<10))
        XCTAssertEqual(reader.status, .reading, "random access: not complete before markConfigurationAsFinal()")
        output.reset(forReadingTimeRanges: [
            NSValue(
                timeRange: CMTimeRange(start: CMTime(value: 5, timescale: 1), duration: CMTime(value: 1, timescale: 10))
            ),
            NSValue(
                timeRange: CMTimeRange(start: CMTime(value: 1, timescale: 1), duration: CMTime(value: 1, timescale: 10))
            ),
        ])
        XCTAssertEqual(
            readAll(output).compactMap { $0.imageBuffer.flatMap(frameIndex) }, Array(150..<153) + Array(30..<33))
        output.markConfigurationAsFinal()
        XCTAssertNil(output.copyNextSampleBuffer())
        XCTAssertEqual(reader.status, .completed)
    }

    // MARK: Damaged input, threads

    func test_corruptMiddle_neverCrashes_endsWithAnAnswer() throws {
        let (reader, output) = try reader(.corruptMiddle, .video) {
            AVAssetReaderTrackOutput(
                track: $0, outputSettings: [kCVPixelBufferPixelFormatTypeKey: Int(kCVPixelFormatType_32BGRA)])
        }
        XCTAssertTrue(reader.startReading())
        let samples = readAll(output)
        XCTAssertGreaterThan(samples.count, 100)
        XCTAssertTrue([.completed, .failed].contains(reader.status))
        if reader.status == .failed {
            XCTAssertEqual((try XCTUnwrap(reader.error) as NSError).domain, AVFoundationErrorDomain)
        }
        let indices = samples.compactMap { $0.imageBuffer.flatMap(frameIndex) }
        XCTAssertEqual(Array(indices.prefix(30)), Array(0..<30), "the intact start reads as it is")
    }

    func test_unknownCodec_startReadingFails() throws {
        let (reader, _) = try reader(.unknownCodec, .video) {
            AVAssetReaderTrackOutput(track: $0, outputSettings: [:])
        }
        XCTAssertFalse(reader.startReading())
        XCTAssertEqual(reader.status, .failed)
        let error = try XCTUnwrap(reader.error) as NSError
        XCTAssertEqual(error.domain, AVFoundationErrorDomain)
        XCTAssertEqual(error.code, AVError.Code.decoderNotFound.rawValue)
    }

    func test_cancelReading_fromAnotherThread_whileCopying() throws {
        let (reader, output) = try reader(.longGOP1080p, .video) {
            AVAssetReaderTrackOutput(
                track: $0, outputSettings: [kCVPixelBufferPixelFormatTypeKey: Int(kCVPixelFormatType_32BGRA)])
        }
        XCTAssertTrue(reader.startReading())
        let started = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let count = Locked(0)
        Thread.detachNewThread {
            while output.copyNextSampleBuffer() != nil {
                let n = count.withLock { c -> Int in
                    c += 1
                    return c
                }
                if n == 5 { started.signal() }
            }
            done.signal()
        }
        XCTAssertEqual(started.wait(timeout: .now() + 120), .success)
        reader.cancelReading()
        XCTAssertEqual(done.wait(timeout: .now() + Awaitable<Void>.hangGuard), .success, "the reading thread stops")
        XCTAssertEqual(reader.status, .cancelled)
        XCTAssertLessThan(count.withLock { $0 }, 900, "it stopped before the end")
        XCTAssertNil(output.copyNextSampleBuffer())
    }

    func test_outputKeepsReading_afterTheAppLetsGoOfTheReader() throws {
        var reader: AVAssetReader? = try AVAssetReader(asset: AVURLAsset(url: try fixture(.videoOnly)))
        let track = try XCTUnwrap(reader?.asset.tracks(withMediaType: .video).first)
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: [:])
        reader?.add(output)
        XCTAssertEqual(reader?.startReading(), true)
        weak let released = reader
        reader = nil
        XCTAssertNil(released, "nothing but the app holds the reader")
        XCTAssertEqual(readAll(output).count, 90)
    }

    // MARK: Other codecs

    func test_otherCodecs_everyFrameAndSample() throws {
        for f in [Fixture.hevcMKV, .vp9OpusWebM] {
            let (reader, output) = try reader(f, .video) { AVAssetReaderTrackOutput(track: $0, outputSettings: [:]) }
            XCTAssertTrue(reader.startReading())
            let frameCount = try XCTUnwrap(f.facts.video?.frameCount)
            XCTAssertEqual(
                readAll(output).compactMap { $0.imageBuffer.flatMap(frameIndex) }, Array(0..<frameCount), f.rawValue)
            XCTAssertEqual(reader.status, .completed, f.rawValue)
        }
        for f in [Fixture.audioMP3, .vp9OpusWebM, .audioWAV] {
            let (reader, output) = try reader(f, .audio) {
                AVAssetReaderTrackOutput(
                    track: $0,
                    outputSettings: [
                        AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true,
                    ])
            }
            XCTAssertTrue(reader.startReading())
            let ours = try bytes(readAll(output))
            XCTAssertEqual(reader.status, .completed, "\(f.rawValue): \(String(describing: reader.error))")
            let reference = try ffmpegAudio(f, format: "f32le")
            XCTAssertGreaterThan(reference.count, 0)
            XCTAssertTrue(ours == reference, "\(f.rawValue): \(ours.count) vs \(reference.count) bytes")
        }
    }
}
