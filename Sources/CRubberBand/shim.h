#ifndef CRUBBERBAND_SHIM_H
#define CRUBBERBAND_SHIM_H
// Rubber Band's C API (its C++ API is not importable without C++ interop).
#include <rubberband/rubberband-c.h>
#endif
