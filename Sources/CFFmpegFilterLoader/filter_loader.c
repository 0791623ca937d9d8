// Loads libavfilter when it is first used instead of when the process starts.
//
// Why: libavfilter pulls in about 30 further libraries (libplacebo with Vulkan and libepoxy, LAPACK, flite,
// pocketsphinx, lilv …); binding them is about 75 million instructions, a third of the dynamic loader's work at
// every start of a program linked with it, while only audio time-stretching and HDR tone mapping use it. FFmpegBridge
// is therefore not linked with libavfilter (Package.swift leaves it out of CFFmpeg's pkg-config list); the static
// linker binds its calls to the definitions below, which are hidden (not exported, so they never interpose the real
// library's own symbols) and forward to libavfilter, opened with dlopen on the first call.
//
// When libavfilter cannot be opened, the functions fail as libavfilter itself reports failure: allocations and
// look-ups return NULL, the rest AVERROR(ENOSYS); frees do nothing.
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>

#pragma GCC visibility push(hidden)
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavutil/error.h>
#include <libavutil/macros.h>

static void *library;
static pthread_once_t library_once = PTHREAD_ONCE_INIT;

static void open_library(void) {
    // Global, as when it was linked (its symbols visible to `dlsym(RTLD_DEFAULT, …)` once it is loaded).
    library = dlopen("libavfilter.so." AV_STRINGIFY(LIBAVFILTER_VERSION_MAJOR), RTLD_LAZY | RTLD_GLOBAL);
}

static void *library_symbol(const char *name) {
    pthread_once(&library_once, open_library);
    return library ? dlsym(library, name) : NULL;
}

// Declares `f`, the real `name`, resolved once (a race resolves it twice to the same address).
#define RESOLVE(name)                                                                                             \
    static __typeof__(&name) name##_real;                                                                         \
    __typeof__(&name) f = __atomic_load_n(&name##_real, __ATOMIC_ACQUIRE);                                        \
    if (!f) {                                                                                                     \
        f = (__typeof__(&name))library_symbol(#name);                                                             \
        __atomic_store_n(&name##_real, f, __ATOMIC_RELEASE);                                                      \
    }

AVFilterGraph *avfilter_graph_alloc(void) {
    RESOLVE(avfilter_graph_alloc);
    return f ? f() : NULL;
}

void avfilter_graph_free(AVFilterGraph **graph) {
    RESOLVE(avfilter_graph_free);
    if (f) f(graph);
}

const AVFilter *avfilter_get_by_name(const char *name) {
    RESOLVE(avfilter_get_by_name);
    return f ? f(name) : NULL;
}

int avfilter_graph_create_filter(AVFilterContext **filt_ctx, const AVFilter *filt, const char *name,
                                 const char *args, void *opaque, AVFilterGraph *graph_ctx) {
    RESOLVE(avfilter_graph_create_filter);
    return f ? f(filt_ctx, filt, name, args, opaque, graph_ctx) : AVERROR(ENOSYS);
}

int avfilter_link(AVFilterContext *src, unsigned srcpad, AVFilterContext *dst, unsigned dstpad) {
    RESOLVE(avfilter_link);
    return f ? f(src, srcpad, dst, dstpad) : AVERROR(ENOSYS);
}

int avfilter_graph_config(AVFilterGraph *graphctx, void *log_ctx) {
    RESOLVE(avfilter_graph_config);
    return f ? f(graphctx, log_ctx) : AVERROR(ENOSYS);
}

int avfilter_graph_parse_ptr(AVFilterGraph *graph, const char *filters, AVFilterInOut **inputs,
                             AVFilterInOut **outputs, void *log_ctx) {
    RESOLVE(avfilter_graph_parse_ptr);
    return f ? f(graph, filters, inputs, outputs, log_ctx) : AVERROR(ENOSYS);
}

int avfilter_graph_send_command(AVFilterGraph *graph, const char *target, const char *cmd, const char *arg,
                                char *res, int res_len, int flags) {
    RESOLVE(avfilter_graph_send_command);
    return f ? f(graph, target, cmd, arg, res, res_len, flags) : AVERROR(ENOSYS);
}

AVFilterInOut *avfilter_inout_alloc(void) {
    RESOLVE(avfilter_inout_alloc);
    return f ? f() : NULL;
}

void avfilter_inout_free(AVFilterInOut **inout) {
    RESOLVE(avfilter_inout_free);
    if (f) f(inout);
}

int av_buffersrc_add_frame_flags(AVFilterContext *buffer_src, AVFrame *frame, int flags) {
    RESOLVE(av_buffersrc_add_frame_flags);
    return f ? f(buffer_src, frame, flags) : AVERROR(ENOSYS);
}

int av_buffersink_get_frame(AVFilterContext *ctx, AVFrame *frame) {
    RESOLVE(av_buffersink_get_frame);
    return f ? f(ctx, frame) : AVERROR(ENOSYS);
}

#pragma GCC visibility pop
