import Foundation
import PlaybackEngine

extension AVAsset {
    /// The `AVError` for an error the engine reports while preparing or playing an item of the asset: the failure
    /// its resource loader recorded when the loader's reader caused it, else ``AVError/playbackFailure(_:url:)``.
    /// Any thread.
    func playbackFailure(_ error: any Error) -> AVError {
        let urlAsset = self as? AVURLAsset
        if let recorded = urlAsset?.resourceLoader.failure(causing: error) { return recorded }
        return AVError.playbackFailure(error, url: urlAsset?.url ?? loader.url)
    }
}

extension AVError {
    /// The `AVError` for any error the engine reports while preparing or playing an item of `url`
    /// (`EngineEvent.itemFailed` / `.itemFailedToPlayToEnd`): an `AVError` as it is; media that ends before its
    /// stated duration (`MediaEndedEarly`) as `.failedToLoadMediaData`; a cancelled or timed-out read as
    /// `.operationInterrupted`; damaged data or an I/O error as `.failedToLoadMediaData`; other media failures as
    /// failures to open (``openFailure(_:_:)``); anything else as `.unknown` with the error's description.
    /// Any thread.
    static func playbackFailure(_ error: any Error, url: URL) -> AVError {
        if let e = error as? AVError { return e }
        let name = displayName(url)
        if let e = error as? MediaEndedEarly {
            return .media(
                .failedToLoadMediaData,
                String(
                    format: "“%@” ends early: its data stops at %.2f s of %.2f s.", name, e.endedAt.seconds,
                    e.duration.seconds),
                reason: "The file is truncated or was not fully downloaded.", url: url)
        }
        if let e = error as? any MediaFailure {
            if e.kind == .cancelled {
                return .media(.operationInterrupted, "Reading “\(name)” was interrupted.", url: url, ffmpeg: e)
            }
            if e.kind == .invalidData || e.posixErrno == EIO {
                // The HLS source names the request or playlist that failed.
                return .media(
                    .failedToLoadMediaData, "“\(name)” could not be read to its end: \(e.message).",
                    reason: e.function.hasPrefix("HLS") ? e.function : nil, url: url, ffmpeg: e)
            }
            return openFailure(url, e)
        }
        return .media(.unknown, "“\(name)” can’t be played: \(error).", url: url)
    }
}
