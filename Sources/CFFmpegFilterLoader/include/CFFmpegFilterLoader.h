// CFFmpegFilterLoader has no API of its own: it defines, with hidden visibility, the libavfilter functions
// FFmpegBridge calls (see filter_loader.c), so that the process does not load libavfilter until one is called.
