import CSDL2
import CoreMedia
import PlaybackEngine

/// What the window thread draws over the picture and reads back (window thread only, as every SDL call).
extension SDLVideoWindow {
    /// Draws the subtitles shown at `time` over the video rectangle `rect` of an `output`-sized renderer (window thread):
    /// rendered by libass at the rectangle's size, only the part inside the output, uploaded again only when the
    /// image changed.
    func drawSubtitles(
        _ renderer: OpaquePointer, in rect: SDL_Rect, output: (width: Int, height: Int),
        pictureSize: (width: Int, height: Int), time: CMTime
    ) {
        guard let store = windowSubtitles else {
            drawnSubtitleVersion = nil
            return
        }
        drawnSubtitleVersion = store.version
        if subtitleRenderer == nil && !subtitleRendererFailed {
            subtitleRenderer = SubtitleRenderer()
            subtitleRendererFailed = subtitleRenderer == nil
        }
        guard let subtitleRenderer, rect.w > 0, rect.h > 0 else { return }
        subtitleRenderer.setScript(header: store.assHeader, style: windowSubtitleStyle)
        subtitleRenderer.storageSize = pictureSize
        let frame = store.frameSize
        subtitleRenderer.bitmapFrameSize = frame.width > 0 && frame.height > 0 ? frame : pictureSize
        // The part of the video rectangle inside the output, in the rectangle's pixels.
        let x0 = max(0, -Int(rect.x))
        let y0 = max(0, -Int(rect.y))
        let x1 = min(Int(rect.w), output.width - Int(rect.x))
        let y1 = min(Int(rect.h), output.height - Int(rect.y))
        guard x0 < x1, y0 < y1,
            let image = subtitleRenderer.render(
                store.shown(at: time), at: time, width: Int(rect.w), height: Int(rect.h),
                visible: (x0, y0, x1 - x0, y1 - y0))
        else { return }
        if image != subtitleImage || subtitleTexture == nil {
            if subtitleImage.map({ ($0.width, $0.height) != (image.width, image.height) }) ?? true {
                if let subtitleTexture { SDL_DestroyTexture(subtitleTexture) }
                subtitleTexture = SDL_CreateTexture(
                    renderer, SDL_PIXELFORMAT_ARGB8888.rawValue, Int32(SDL_TEXTUREACCESS_STREAMING.rawValue),
                    Int32(image.width), Int32(image.height))
                if let subtitleTexture { SDL_SetTextureBlendMode(subtitleTexture, SDL_BLENDMODE_BLEND) }
            }
            guard let subtitleTexture else {
                subtitleImage = nil
                return
            }
            image.pixels.withUnsafeBytes {
                _ = SDL_UpdateTexture(subtitleTexture, nil, $0.baseAddress, Int32(image.width * 4))
            }
            subtitleImage = image
        }
        guard let subtitleTexture else { return }
        var destination = SDL_Rect(
            x: rect.x + Int32(x0 + image.x), y: rect.y + Int32(y0 + image.y), w: Int32(image.width),
            h: Int32(image.height))
        SDL_RenderCopy(renderer, subtitleTexture, nil, &destination)
    }

    /// Answers a pending ``readBack(timeout:)`` with what the renderer drew (window thread, after drawing).
    func answerReadBack(_ renderer: OpaquePointer, width: Int, height: Int, rect: SDL_Rect, time: CMTime) {
        snapshotReady.lock()
        defer { snapshotReady.unlock() }
        guard snapshotRequested, snapshot == nil, width > 0, height > 0 else { return }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let status = pixels.withUnsafeMutableBytes {
            SDL_RenderReadPixels(renderer, nil, SDL_PIXELFORMAT_ARGB8888.rawValue, $0.baseAddress, Int32(width * 4))
        }
        guard status == 0 else { return }
        snapshot = Snapshot(
            pixels: pixels, width: width, height: height,
            videoRect: (Int(rect.x), Int(rect.y), Int(rect.w), Int(rect.h)), itemTime: time)
        snapshotReady.broadcast()
    }
}
