#ifndef CLIBASS_SHIM_H
#define CLIBASS_SHIM_H
// libass, the subtitle renderer mpv and ffmpeg's `subtitles` filter use; its header imports as it is.
#include <ass/ass.h>
#endif
