#ifndef CSDL2_SHIM_H
#define CSDL2_SHIM_H
// SDL_main.h would redefine main; the player owns its own entry point.
#define SDL_MAIN_HANDLED 1
#include <SDL2/SDL.h>
#endif
