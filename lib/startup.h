/* startup: The runtime's start-up frames. */
#ifndef MT_STARTUP_H
#define MT_STARTUP_H

#include <stdint.h>
#include "stacks.h"

/* startup.c: the outermost frames of a stack that are the runtime's start-up */
uint32_t startup_frames(const struct mt_stackinfo *si);

#endif
