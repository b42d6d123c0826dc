// EGL + OpenGL ES 3.2 headers for Swift. GL_GLEXT_PROTOTYPES is not defined: extension entry points
// come from eglGetProcAddress at run time.
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl32.h>
#include <GLES2/gl2ext.h>
