// GTK 4 and OpenGL 3 with its entry points declared (GL_GLEXT_PROTOTYPES: libglvnd's libGL exports them and sends
// each call to the context current on the thread, the EGL or GLX one GtkGLArea made).
#define GL_GLEXT_PROTOTYPES 1
#include <gtk/gtk.h>
#include <GL/gl.h>
#include <GL/glext.h>
