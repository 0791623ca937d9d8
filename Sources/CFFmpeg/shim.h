#ifndef CFFMPEG_SHIM_H
#define CFFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/display.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/channel_layout.h>
#include <libavutil/pixdesc.h>
#include <libavutil/dict.h>
#include <libavutil/error.h>
#include <libavutil/aes.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersrc.h>
#include <libavfilter/buffersink.h>

// Why a shim: Swift cannot import function-like macros or macros built from casts and
// FFERRTAG(...) expressions. Each CFFmpeg_ function below re-states one such macro.
static inline int CFFmpeg_AVERROR(int e) { return AVERROR(e); }
static inline int CFFmpeg_AVERROR_EOF(void) { return AVERROR_EOF; }
static inline int CFFmpeg_AVERROR_INVALIDDATA(void) { return AVERROR_INVALIDDATA; }
static inline int CFFmpeg_AVERROR_DECODER_NOT_FOUND(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int CFFmpeg_AVERROR_DEMUXER_NOT_FOUND(void) { return AVERROR_DEMUXER_NOT_FOUND; }
static inline int CFFmpeg_AVERROR_STREAM_NOT_FOUND(void) { return AVERROR_STREAM_NOT_FOUND; }
static inline int CFFmpeg_AVERROR_PATCHWELCOME(void) { return AVERROR_PATCHWELCOME; }
static inline int CFFmpeg_AVERROR_HTTP_NOT_FOUND(void) { return AVERROR_HTTP_NOT_FOUND; }
static inline int CFFmpeg_AVERROR_HTTP_FORBIDDEN(void) { return AVERROR_HTTP_FORBIDDEN; }
static inline int CFFmpeg_AVERROR_HTTP_UNAUTHORIZED(void) { return AVERROR_HTTP_UNAUTHORIZED; }
static inline int CFFmpeg_AVERROR_HTTP_BAD_REQUEST(void) { return AVERROR_HTTP_BAD_REQUEST; }
static inline int CFFmpeg_AVERROR_HTTP_OTHER_4XX(void) { return AVERROR_HTTP_OTHER_4XX; }
static inline int CFFmpeg_AVERROR_HTTP_SERVER_ERROR(void) { return AVERROR_HTTP_SERVER_ERROR; }
static inline int CFFmpeg_AVERROR_PROTOCOL_NOT_FOUND(void) { return AVERROR_PROTOCOL_NOT_FOUND; }
static inline int CFFmpeg_AVERROR_EXIT(void) { return AVERROR_EXIT; }
static inline int CFFmpeg_AVERROR_UNKNOWN(void) { return AVERROR_UNKNOWN; }
// AV_NOPTS_VALUE is ((int64_t)UINT64_C(0x8000000000000000)), a cast Swift does not import.
static inline int64_t CFFmpeg_AV_NOPTS_VALUE(void) { return AV_NOPTS_VALUE; }
// av_err2str is a macro over a compound literal.
static inline void CFFmpeg_av_strerror(int errnum, char *buf, size_t size) { av_strerror(errnum, buf, size); }
#endif
