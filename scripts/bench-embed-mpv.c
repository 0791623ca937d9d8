// The peer of SDLGLPlayer --bench (scripts/bench, row "embed"): the same app loop with libmpv's render API in place
// of CADisplayLink + AVPlayerItemVideoOutput + CVOpenGLTextureCache. An SDL2 window of 480x400 with an OpenGL 2.1
// context, swap interval 1; a loop ticking every 1/60 s on the monotonic clock (as the display link does), which
// clears the app's background and bar, lets mpv render the video into a 400x300 viewport (mpv_render_context_render
// on the default framebuffer, with its default MPV_RENDER_PARAM_BLOCK_FOR_TARGET_TIME = 1: the call waits for the
// frame's display time, as media-kit and most hosts leave it) and swaps. Sound off (ao=null), hardware decoding off.
//
//     cc -O2 bench-embed-mpv.c $(pkg-config --cflags --libs mpv sdl2 gl) -o bench-embed-mpv
//     bench-embed-mpv FILE SECONDS
//
// Prints the ticks per second the loop held from the first second of playback on, and what one render call cost
// (median, p99, over the calls that drew a new picture), in the line format SDLGLPlayer --bench uses.
#include <GL/gl.h>
#include <SDL2/SDL.h>
#include <mpv/client.h>
#include <mpv/render_gl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void *get_proc_address(void *ctx, const char *name) {
    (void)ctx;
    return SDL_GL_GetProcAddress(name);
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench-embed-mpv FILE SECONDS\n");
        return 2;
    }
    double seconds = atof(argv[2]);
    if (SDL_Init(SDL_INIT_VIDEO) != 0) return 1;
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 2);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 1);
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    SDL_Window *window = SDL_CreateWindow("bench-embed-mpv", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, 480,
                                          400, SDL_WINDOW_OPENGL | SDL_WINDOW_SHOWN);
    SDL_GLContext gl = window ? SDL_GL_CreateContext(window) : NULL;
    if (!gl) {
        fprintf(stderr, "no OpenGL window: %s\n", SDL_GetError());
        return 1;
    }
    SDL_GL_SetSwapInterval(1);

    mpv_handle *mpv = mpv_create();
    mpv_set_option_string(mpv, "vo", "libmpv");
    mpv_set_option_string(mpv, "ao", "null");
    mpv_set_option_string(mpv, "hwdec", "no");
    mpv_set_option_string(mpv, "config", "no");
    if (mpv_initialize(mpv) < 0) return 1;
    mpv_opengl_init_params init = {.get_proc_address = get_proc_address};
    // Default control (no MPV_RENDER_PARAM_ADVANCED_CONTROL), and no synchronous calls into mpv from the render
    // loop: the playback position comes as an observed property (a synchronous mpv_get_property here deadlocks
    // against the render call, mpv #8055).
    mpv_render_param params[] = {{MPV_RENDER_PARAM_API_TYPE, MPV_RENDER_API_TYPE_OPENGL},
                                 {MPV_RENDER_PARAM_OPENGL_INIT_PARAMS, &init},
                                 {0}};
    mpv_render_context *render;
    if (mpv_render_context_create(&render, mpv, params) < 0) return 1;
    const char *command[] = {"loadfile", argv[1], NULL};
    mpv_command(mpv, command);
    mpv_observe_property(mpv, 1, "time-pos", MPV_FORMAT_DOUBLE);
    double position = 0;

    size_t capacity = (size_t)(seconds * 200) + 1000, tickCount = 0, costCount = 0;
    double *ticks = malloc(capacity * sizeof *ticks), *costs = malloc(capacity * sizeof *costs);
    double period = 1.0 / 60, next = now() + period, measureFrom = 0, end = 0;
    for (;;) {
        // The display link's pacing: wait for the next 1/60 s tick.
        double wait = next - now();
        if (wait > 0) SDL_Delay((Uint32)(wait * 1000));
        next += period;
        if (next < now()) next = now() + period;
        SDL_Event event;
        while (SDL_PollEvent(&event))
            if (event.type == SDL_QUIT) end = now();
        while (1) {
            mpv_event *e = mpv_wait_event(mpv, 0);
            if (e->event_id == MPV_EVENT_NONE) break;
            if (e->event_id == MPV_EVENT_END_FILE) end = now();
            if (e->event_id == MPV_EVENT_PROPERTY_CHANGE) {
                mpv_event_property *p = e->data;
                if (p->format == MPV_FORMAT_DOUBLE) position = *(double *)p->data;
            }
        }
        if (measureFrom == 0 && position >= 1) {
            measureFrom = now();
            end = measureFrom + seconds;
        }
        if (end != 0 && now() >= end) break;

        // The app's drawing, then the video in its rectangle (lower left of a 480x400 window, 400x300 as
        // SDLGLPlayer's).
        glViewport(0, 0, 480, 400);
        glClearColor(0.2f, 0.2f, 0.2f, 1);
        glClear(GL_COLOR_BUFFER_BIT);
        double start = now();
        // A new picture or not, the app draws the video every tick (mpv redraws the last one).
        int redraw = (mpv_render_context_update(render) & MPV_RENDER_UPDATE_FRAME) != 0;
        mpv_opengl_fbo fbo = {.fbo = 0, .w = 400, .h = 300};
        int flip = 1;
        mpv_render_param r[] = {{MPV_RENDER_PARAM_OPENGL_FBO, &fbo}, {MPV_RENDER_PARAM_FLIP_Y, &flip}, {0}};
        mpv_render_context_render(render, r);
        glFinish();
        double cost = now() - start;
        SDL_GL_SwapWindow(window);
        mpv_render_context_report_swap(render);
        if (measureFrom != 0 && tickCount < capacity) {
            ticks[tickCount++] = now();
            if (redraw) costs[costCount++] = cost;
        }
    }
    qsort(costs, costCount, sizeof *costs, compare);
    double span = tickCount > 1 ? ticks[tickCount - 1] - ticks[0] : 1e-9;
    printf("bench: loop_fps=%.2f pictures=%zu render_ms_median=%.3f render_ms_p99=%.3f\n", (tickCount - 1) / span,
           costCount, costCount ? costs[costCount / 2] * 1000 : 0.0,
           costCount ? costs[costCount * 99 / 100] * 1000 : 0.0);
    mpv_render_context_free(render);
    mpv_terminate_destroy(mpv);
    SDL_GL_DeleteContext(gl);
    SDL_DestroyWindow(window);
    SDL_Quit();
    return 0;
}
