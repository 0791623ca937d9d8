// SDL2 and OpenGL 2.1 with its entry points declared (GL_GLEXT_PROTOTYPES: Mesa's libGL exports them).
#define GL_GLEXT_PROTOTYPES 1
#include <SDL2/SDL.h>
#include <GL/gl.h>
#include <GL/glext.h>
