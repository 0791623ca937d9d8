import AVFoundation

/// `avplay read-bench FILE [--audio]`: reads every picture of the video track as BGRA (or, with `--audio`, every
/// sample of the first audio track as interleaved 16-bit PCM at its own rate) with an `AVAssetReader`, as fast as
/// the machine allows, and prints how much there was and how long it took (row 17 of `make bench`).
///
/// Public API only, written as an app reading samples writes it: one `AVAssetReaderTrackOutput`, a
/// `copyNextSampleBuffer()` loop on this thread, `status` checked at the end.
enum ReadBenchCommand {
    static func run(_ arguments: [String]) async -> Int32 {
        var input: String?
        var audio = false
        for argument in arguments {
            if argument == "--audio" {
                audio = true
            } else if input == nil, !argument.hasPrefix("-") || argument == "-" {
                input = argument
            } else {
                Terminal.error("read-bench: unknown argument “\(argument)”")
                return 2
            }
        }
        guard let input else {
            Terminal.error("read-bench: give one FILE or URL")
            return 2
        }
        do {
            let asset = AVURLAsset(url: mediaURL(input))
            let type: AVMediaType = audio ? .audio : .video
            guard let track = try await asset.loadTracks(withMediaType: type).first else {
                Terminal.error("read-bench: “\(input)” has no \(audio ? "audio" : "video").")
                return 1
            }
            let reader = try AVAssetReader(asset: asset)
            let settings: [String: Any] =
                audio
                ? [
                    AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: 16, AVLinearPCMIsFloatKey: false,
                    AVLinearPCMIsNonInterleaved: false,
                ]
                : [kCVPixelBufferPixelFormatTypeKey: Int(kCVPixelFormatType_32BGRA)]
            let output = AVAssetReaderTrackOutput(track: track, outputSettings: settings)
            output.alwaysCopiesSampleData = false
            reader.add(output)
            let started = Date()
            guard reader.startReading() else {
                Terminal.error("read-bench: \(reader.error?.localizedDescription ?? "reading did not start")")
                return 1
            }
            var count = 0
            var description = ""
            while let sample = output.copyNextSampleBuffer() {
                count += CMSampleBufferGetNumSamples(sample)
                if description.isEmpty {
                    if let image = CMSampleBufferGetImageBuffer(sample) {
                        description = "\(CVPixelBufferGetWidth(image))x\(CVPixelBufferGetHeight(image)) BGRA"
                    } else if let format = CMSampleBufferGetFormatDescription(sample),
                        let asbd = CMAudioFormatDescriptionGetStreamBasicDescription(format)?.pointee
                    {
                        description = "\(Int(asbd.mSampleRate)) Hz \(asbd.mChannelsPerFrame) ch s16"
                    }
                }
            }
            let seconds = Date().timeIntervalSince(started)
            guard reader.status == .completed else {
                Terminal.error("read-bench: \(reader.error?.localizedDescription ?? "reading stopped")")
                return 1
            }
            print(
                "\(count) \(audio ? "audio frames" : "frames") \(description) in "
                    + String(format: "%.3f s (%.1f per second)", seconds, Double(count) / max(seconds, 1e-9)))
            return 0
        } catch {
            Terminal.error("read-bench: \(error.localizedDescription)")
            return 1
        }
    }
}
