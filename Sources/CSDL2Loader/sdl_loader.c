// Loads SDL2 when it is first used instead of when the process starts.
//
// Why: SDL2 pulls in about 20 further libraries (X11, Wayland, PulseAudio, ALSA, libdecor, DRM/GBM …); binding them
// at every start costs about 30 million instructions, also for the programs and commands that never open a window
// or an audio device (`avplay info`, `thumbs`, `read-bench`, an app that only reads samples). The CSDL2 module is
// therefore not linked with SDL2 (no `link` in its module map, no pkg-config in Package.swift); the static linker
// binds the calls to the definitions below, which are hidden (not exported, so they never interpose the real
// library's own symbols, nor an app's own SDL2) and forward to libSDL2, opened with dlopen on the first call.
//
// Adding a call to another SDL function fails to link (undefined symbol) until it is forwarded here too.
//
// It is opened RTLD_GLOBAL, so `dlsym(RTLD_DEFAULT, …)` finds its other functions once one of these has run.
//
// When libSDL2 cannot be opened, the functions fail as SDL reports failure (-1, NULL, 0, SDL_FALSE; SDL_GetError
// says why), so the player runs without sound or window, as with no device at all.
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC visibility push(hidden)
// SDL marks its declarations visibility("default") unless DECLSPEC is defined; the definitions below must be hidden.
#define DECLSPEC
#define SDL_MAIN_HANDLED 1
#include <SDL2/SDL.h>

static void *library;
static char load_error[256];
static pthread_once_t library_once = PTHREAD_ONCE_INIT;

static void open_library(void) {
    // Global, as when it was linked: `dlsym(RTLD_DEFAULT, "SDL_…")` (SDLVideoWindow's SDL_GetWindowWMInfo, an app's
    // own look-ups) finds it once it is loaded.
    library = dlopen("libSDL2-2.0.so.0", RTLD_LAZY | RTLD_GLOBAL);
    if (!library) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "libSDL2-2.0.so.0 could not be loaded: %s", reason ? reason : "");
    }
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

// `ret name params` forwarding `args`, or returning `failure` without the library.
#define FORWARD(ret, name, params, args, failure)                                                                 \
    ret name params {                                                                                             \
        RESOLVE(name);                                                                                            \
        return f ? f args : (failure);                                                                            \
    }
#define FORWARD_VOID(name, params, args)                                                                          \
    void name params {                                                                                            \
        RESOLVE(name);                                                                                            \
        if (f) f args;                                                                                            \
    }

const char *SDL_GetError(void) {
    RESOLVE(SDL_GetError);
    return f ? f() : load_error;
}

FORWARD_VOID(SDL_ClearError, (void), ())
FORWARD_VOID(SDL_SetMainReady, (void), ())
FORWARD(SDL_bool, SDL_SetHintWithPriority, (const char *name, const char *value, SDL_HintPriority priority),
        (name, value, priority), SDL_FALSE)
FORWARD(int, SDL_InitSubSystem, (Uint32 flags), (flags), -1)
FORWARD_VOID(SDL_QuitSubSystem, (Uint32 flags), (flags))
FORWARD_VOID(SDL_GetVersion, (SDL_version * ver), (ver))
FORWARD(Uint32, SDL_GetTicks, (void), (), 0)
FORWARD_VOID(SDL_free, (void *mem), (mem))

// Audio.
FORWARD(const char *, SDL_GetCurrentAudioDriver, (void), (), NULL)
FORWARD(int, SDL_GetNumAudioDevices, (int iscapture), (iscapture), -1)
FORWARD(const char *, SDL_GetAudioDeviceName, (int index, int iscapture), (index, iscapture), NULL)
FORWARD(int, SDL_GetDefaultAudioInfo, (char **name, SDL_AudioSpec *spec, int iscapture), (name, spec, iscapture), -1)
FORWARD(SDL_AudioDeviceID, SDL_OpenAudioDevice,
        (const char *device, int iscapture, const SDL_AudioSpec *desired, SDL_AudioSpec *obtained,
         int allowed_changes),
        (device, iscapture, desired, obtained, allowed_changes), 0)
FORWARD(SDL_AudioStatus, SDL_GetAudioDeviceStatus, (SDL_AudioDeviceID dev), (dev), SDL_AUDIO_STOPPED)
FORWARD_VOID(SDL_PauseAudioDevice, (SDL_AudioDeviceID dev, int pause_on), (dev, pause_on))
FORWARD_VOID(SDL_CloseAudioDevice, (SDL_AudioDeviceID dev), (dev))

// Events.
FORWARD(int, SDL_PollEvent, (SDL_Event * event), (event), 0)
FORWARD(int, SDL_WaitEventTimeout, (SDL_Event * event, int timeout), (event, timeout), 0)
FORWARD(int, SDL_PushEvent, (SDL_Event * event), (event), -1)
FORWARD_VOID(SDL_FilterEvents, (SDL_EventFilter filter, void *userdata), (filter, userdata))
FORWARD(Uint32, SDL_RegisterEvents, (int numevents), (numevents), (Uint32)-1)
FORWARD_VOID(SDL_AddEventWatch, (SDL_EventFilter filter, void *userdata), (filter, userdata))
FORWARD_VOID(SDL_DelEventWatch, (SDL_EventFilter filter, void *userdata), (filter, userdata))
FORWARD(SDL_bool, SDL_IsTextInputActive, (void), (), SDL_FALSE)

// Video: displays and windows.
FORWARD(const char *, SDL_GetCurrentVideoDriver, (void), (), NULL)
FORWARD(int, SDL_GetNumVideoDisplays, (void), (), -1)
FORWARD(int, SDL_GetCurrentDisplayMode, (int displayIndex, SDL_DisplayMode *mode), (displayIndex, mode), -1)
FORWARD(SDL_Window *, SDL_CreateWindow, (const char *title, int x, int y, int w, int h, Uint32 flags),
        (title, x, y, w, h, flags), NULL)
FORWARD(SDL_Window *, SDL_CreateWindowFrom, (const void *data), (data), NULL)
FORWARD_VOID(SDL_DestroyWindow, (SDL_Window * window), (window))
FORWARD(Uint32, SDL_GetWindowID, (SDL_Window * window), (window), 0)
FORWARD_VOID(SDL_ShowWindow, (SDL_Window * window), (window))
FORWARD_VOID(SDL_HideWindow, (SDL_Window * window), (window))
FORWARD_VOID(SDL_SetWindowSize, (SDL_Window * window, int w, int h), (window, w, h))
FORWARD_VOID(SDL_SetWindowTitle, (SDL_Window * window, const char *title), (window, title))

// Video: rendering.
FORWARD(SDL_Renderer *, SDL_CreateRenderer, (SDL_Window * window, int index, Uint32 flags), (window, index, flags),
        NULL)
FORWARD_VOID(SDL_DestroyRenderer, (SDL_Renderer * renderer), (renderer))
FORWARD(int, SDL_GetRendererOutputSize, (SDL_Renderer * renderer, int *w, int *h), (renderer, w, h), -1)
FORWARD(int, SDL_SetRenderDrawColor, (SDL_Renderer * renderer, Uint8 r, Uint8 g, Uint8 b, Uint8 a),
        (renderer, r, g, b, a), -1)
FORWARD(int, SDL_RenderClear, (SDL_Renderer * renderer), (renderer), -1)
FORWARD(int, SDL_RenderFillRect, (SDL_Renderer * renderer, const SDL_Rect *rect), (renderer, rect), -1)
FORWARD(int, SDL_RenderCopy,
        (SDL_Renderer * renderer, SDL_Texture *texture, const SDL_Rect *srcrect, const SDL_Rect *dstrect),
        (renderer, texture, srcrect, dstrect), -1)
FORWARD(int, SDL_RenderCopyEx,
        (SDL_Renderer * renderer, SDL_Texture *texture, const SDL_Rect *srcrect, const SDL_Rect *dstrect,
         const double angle, const SDL_Point *center, const SDL_RendererFlip flip),
        (renderer, texture, srcrect, dstrect, angle, center, flip), -1)
FORWARD_VOID(SDL_RenderPresent, (SDL_Renderer * renderer), (renderer))
FORWARD(int, SDL_RenderReadPixels,
        (SDL_Renderer * renderer, const SDL_Rect *rect, Uint32 format, void *pixels, int pitch),
        (renderer, rect, format, pixels, pitch), -1)
FORWARD(SDL_Texture *, SDL_CreateTexture, (SDL_Renderer * renderer, Uint32 format, int access, int w, int h),
        (renderer, format, access, w, h), NULL)
FORWARD_VOID(SDL_DestroyTexture, (SDL_Texture * texture), (texture))
FORWARD(int, SDL_SetTextureBlendMode, (SDL_Texture * texture, SDL_BlendMode blendMode), (texture, blendMode), -1)
FORWARD(int, SDL_UpdateTexture, (SDL_Texture * texture, const SDL_Rect *rect, const void *pixels, int pitch),
        (texture, rect, pixels, pitch), -1)
FORWARD(int, SDL_UpdateYUVTexture,
        (SDL_Texture * texture, const SDL_Rect *rect, const Uint8 *Yplane, int Ypitch, const Uint8 *Uplane,
         int Upitch, const Uint8 *Vplane, int Vpitch),
        (texture, rect, Yplane, Ypitch, Uplane, Upitch, Vplane, Vpitch), -1)
FORWARD(int, SDL_UpdateNVTexture,
        (SDL_Texture * texture, const SDL_Rect *rect, const Uint8 *Yplane, int Ypitch, const Uint8 *UVplane,
         int UVpitch),
        (texture, rect, Yplane, Ypitch, UVplane, UVpitch), -1)

#pragma GCC visibility pop
