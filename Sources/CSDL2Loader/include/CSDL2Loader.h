// CSDL2Loader has no API of its own: it defines, with hidden visibility, the SDL2 functions SDLOutput (and the tests
// that draw in SDL windows) call (see sdl_loader.c), so that the process does not load SDL2 until one is called.
