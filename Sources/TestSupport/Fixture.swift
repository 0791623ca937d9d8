/// One file of the generated test-media set; the raw value is its file name.
///
/// `scripts/make-fixtures` makes every file; `facts` says what each one holds. Unless stated, video is 320x240 at
/// 30 fps with the frame-index strip (`FrameIndexReader`) on every frame, and audio is stereo 48 kHz with a 0.5
/// amplitude sine per channel: 440 Hz left, 660 Hz right.
public enum Fixture: String, CaseIterable, Sendable {
    /// 10 s H.264 High (2 B-frames, closed 2 s GOPs, yuv420p) + AAC-LC in MP4, `moov` at the end, with container
    /// metadata (title, artist, album, creation date). The reference file; the damaged copies derive from it.
    case h264AAC = "h264_aac.mp4"
    /// 3 s HEVC + AAC in Matroska.
    case hevcMKV = "hevc.mkv"
    /// 3 s VP9 + Opus in WebM.
    case vp9OpusWebM = "vp9_opus.webm"
    /// 3 s H.264 + AAC in MPEG-TS (timestamps start at 1.4 s, ffmpeg's muxer default).
    case h264AACTS = "h264_aac.ts"
    /// 4 s 320x180 H.264 (2 B-frames, closed 1 s GOPs) + 16-bit FLAC in Matroska (millisecond timestamps), for
    /// playback dumps: its audio is lossless, so what the engine renders hashes the same on any CPU. The tones'
    /// amplitude rises from 0.5 by 0.0005 per second (inaudible), so no two 50 ms-apart positions hash the same.
    case dumpH264FLAC = "dump_h264_flac.mkv"
    /// 3 s stereo MP3 with ID3v2 title and artist.
    case audioMP3 = "audio.mp3"
    /// 3 s stereo FLAC.
    case audioFLAC = "audio.flac"
    /// 3 s stereo 16-bit PCM WAV.
    case audioWAV = "audio.wav"
    /// 3 s H.264 in MP4, no audio track.
    case videoOnly = "video_only.mp4"
    /// 4 s H.264 + AAC in MP4 at 25 fps (100 pictures, 60-picture GOPs), for display links pulling at 30 and
    /// 60 Hz, rates that are not multiples of the video's.
    case video25AAC = "video25_aac.mp4"
    /// 2 s 10-bit HEVC (`yuv420p10le`, no B-frames) in MP4, no audio, tagged BT.2020 primaries and matrix with the
    /// PQ transfer, and HDR10 SEI on every keyframe: mastering display primaries G (0.265, 0.69), B (0.15, 0.06),
    /// R (0.68, 0.32), white (0.3127, 0.329), luminance 1000 / 0.0001 cd/m²; MaxCLL 1000, MaxFALL 400.
    case hdr10HEVC = "hdr10_hevc.mp4"
    /// 3 s AAC in MP4 (`.m4a`), no video track.
    case audioOnly = "audio_only.m4a"
    /// 5 s H.264 in Matroska with two audio tracks (eng "English" 440/660 Hz, fra "Français" 550/770 Hz) and two
    /// subtitle tracks (eng "English" SubRip, fra "Français" WebVTT).
    case multiAudioSubtitles = "multi_audio_subs.mkv"
    /// `multiAudioSubtitles`' video and audio (eng default) with three subtitle tracks, none default: eng "English"
    /// (its SubRip), eng "English (forced)" and fra "Français (forced)", flagged forced, cues "Forced eng n" /
    /// "Forced fra n" at the English cues' times.
    case forcedSubtitles = "forced_subs.mkv"
    /// 6 s H.264 (1 s GOPs) + AAC in Matroska with three English subtitle tracks of the same cues, differently
    /// styled: SubRip "SubRip", ASS "ASS" (one more cue), WebVTT "WebVTT" (see `Fixture.styledCues`).
    case subtitles = "subtitles.mkv"
    /// `subtitles`' video, audio and SubRip track in MP4, the subtitles as mov_text (tx3g).
    case subtitlesMovText = "subtitles_mov_text.mp4"
    /// 5 s H.264 in Matroska, no audio, with three bitmap subtitle tracks of the same pictures, eng "PGS", "DVD"
    /// (dvd_subtitle) and "DVB", for a 320x240 picture: an opaque yellow 240x40 box at (40, 180) from 1 s to 2 s, a
    /// cyan 120x30 box at (100, 20) from 3 s to 4 s.
    case bitmapSubtitles = "bitmap_subtitles.mkv"
    /// 4 s H.264 (no B-frames, 1 s GOPs) in MP4, no audio, with CEA-608
    /// captions in ATSC A/53 SEI: "CC n AT n.0" shown from n s to n + 0.4 s, n = 1…3 (`Fixture.closedCaptions`).
    case captions608 = "captions_608.mp4"
    /// `captions608`'s pictures and CEA-608 captions, and CEA-708 (DTVCC) captions in the same SEI: service 1
    /// "SERVICE1 n AT n.0" shown from n s to n + 0.4 s (caption 2 italic, 3 yellow), service 2 "SERVICE2 n AT n.5"
    /// from n + 0.5 s to n + 0.9 s, n = 1…3 (`Fixture.cea708Service1`, `Fixture.cea708Service2`).
    case captions708 = "captions_708.mp4"
    /// 3 s H.264 + AAC in MP4, coded 320x240, displayed turned 90° clockwise (an iPhone portrait recording's
    /// matrix: a b c d tx ty = 0 1 -1 0 240 0; ffprobe: display matrix rotation -90). The pixels are not rotated.
    case rotated90 = "rotated90.mp4"
    /// 2 s VP9 4:2:0 at 321x241 in WebM, no audio (H.264 4:2:0 cannot code odd sizes).
    case odd321x241 = "odd_321x241.webm"
    /// 100 frames of H.264 + 4 s AAC in MP4 at a variable rate: frames 0–59 1/30 s apart, then alternately 1/30 s
    /// and 1/15 s apart (see `VideoFacts.presentationTimes`).
    case variableFrameRate = "vfr.mp4"
    /// 30 s 1920x1080 H.264 (10 s GOPs, 2 B-frames, CRF 28) + AAC in MP4, for benchmarks. Never commit it.
    case longGOP1080p = "long_gop_1080p.mp4"
    /// The first half of `h264AAC`'s bytes: no `moov`, so it cannot be opened.
    case truncated = "truncated.mp4"
    /// `h264AAC` remuxed with `moov` first, cut to 60 % of its bytes: opens as 10 s, data ends after ~6 s.
    case truncatedFaststart = "truncated_faststart.mp4"
    /// `h264AAC` with 8 KiB of noise over the middle of `mdat`, same size: opens, decodes with errors mid-file.
    case corruptMiddle = "corrupt_middle.mp4"
    /// A faststart copy of `h264AAC` with bytes 32..<1056 (the `moov` header and start) overwritten: cannot open.
    case corruptHeader = "corrupt_header.mp4"
    /// Zero bytes.
    case empty = "empty.mp4"
    /// A short plain-text file named `.mp4`.
    case text = "text.mp4"
    /// `videoOnly`'s H.264 stream copied into AVI under the unknown fourcc `ZZZZ`: opens, but no decoder exists
    /// (ffprobe: codec_name "unknown").
    case unknownCodec = "unknown_codec.avi"
    /// 8 s 640x360 H.264 + AAC, for `make play`.
    case demo = "demo.mp4"
    /// 10 s H.264 in MP4, no audio, one 300-picture GOP, every B-frame run three long with a B-pyramid (coded P,
    /// reference B, two non-reference b): exact-seek targets on every kind of picture.
    case bPyramidH264 = "bpyramid_h264.mp4"
    /// 4 s HEVC in MP4, no audio, one 120-picture GOP, three B-frames per run with a B-pyramid (sub-layer
    /// non-reference pictures).
    case hevcBPyramid = "hevc_bpyramid.mp4"
    /// 4 s VP9 in WebM, no audio, one 120-picture GOP, with hidden alternate-reference frames (superframes).
    case vp9AltRef = "vp9_altref.webm"
}
