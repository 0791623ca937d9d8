import Foundation

// Building a composition from an asset's video tracks (Apple's `videoComposition(withPropertiesOf:)`).
extension AVVideoComposition {
    /// A mutable composition with `asset`'s properties (see ``videoComposition(withPropertiesOf:)``).
    static func loadedComposition(withPropertiesOf asset: AVAsset) async throws -> AVMutableVideoComposition {
        try await asset.awaitValues(forKeys: ["tracks", "duration"])
        let composition = AVMutableVideoComposition()
        configure(composition, from: asset)
        return composition
    }

    /// The completion-handler form of ``loadedComposition(withPropertiesOf:)``.
    static func loadComposition(
        withPropertiesOf asset: AVAsset,
        completionHandler: @escaping @Sendable (AVMutableVideoComposition?, (any Error)?) -> Void
    ) {
        asset.loader.request { result in
            switch result {
            case .success:
                let composition = AVMutableVideoComposition()
                configure(composition, from: asset)
                completionHandler(composition, nil)
            case .failure(let error):
                completionHandler(nil, error)
            }
        }
    }

    /// Fills `composition` from a loaded asset's video tracks.
    static func configure(_ composition: AVMutableVideoComposition, from asset: AVAsset) {
        let tracks = asset.tracks.filter { $0.mediaType == .video }
        var bounds: CGRect?
        var maxRate: Float = 0
        var layers: [AVVideoCompositionLayerInstruction] = []
        for track in tracks {
            let transform = track.preferredTransform
            let rect = CGRect(origin: .zero, size: track.naturalSize).applying(transform)
            bounds = bounds.map { $0.union(rect) } ?? rect
            maxRate = max(maxRate, track.nominalFrameRate)
            let layer = AVMutableVideoCompositionLayerInstruction(assetTrack: track)
            layer.setTransform(transform, at: .zero)
            layers.append(layer)
        }
        let instruction = AVMutableVideoCompositionInstruction()
        let duration = asset.duration.isNumeric ? asset.duration : CMTime.positiveInfinity
        instruction.timeRange = CMTimeRange(start: .zero, duration: duration)
        instruction.layerInstructions = layers
        composition.renderSize = bounds.map { CGSize(width: abs($0.width), height: abs($0.height)) } ?? .zero
        composition.frameDuration = frameDuration(forRate: maxRate)
        composition.instructions = tracks.isEmpty ? [] : [instruction]
    }

    /// One frame at `rate` frames per second, exact for whole and NTSC (×1000/1001) rates; 1/30 s without a rate.
    static func frameDuration(forRate rate: Float) -> CMTime {
        guard rate.isFinite, rate > 0 else { return CMTime(value: 1, timescale: 30) }
        let whole = Double(rate).rounded()
        if abs(Double(rate) - whole) < 0.001 { return CMTime(value: 1, timescale: CMTimeScale(whole)) }
        let ntsc = (Double(rate) * 1001).rounded()
        if abs(Double(rate) * 1001 - ntsc) < 1.0 && abs(ntsc / 1000 - (ntsc / 1000).rounded()) < 0.001 {
            return CMTime(value: 1001, timescale: CMTimeScale(ntsc))
        }
        return CMTime(value: 1000, timescale: CMTimeScale((Double(rate) * 1000).rounded()))
    }
}
