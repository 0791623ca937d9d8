// HTTP Live Streaming (RFC 8216) for the engine: the playlist models and their parser (pure, fed by strings), segment
// fetching over URLSession, and `HLSSource`, a `MediaSource` that feeds one variant's segments to libavformat through
// a custom I/O context. The engine knows only the `MediaSource` protocol; the public layer chooses this source for
// HLS URLs.
