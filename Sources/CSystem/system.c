// system.c: see CSystem.h.
#define _GNU_SOURCE
#include <fcntl.h>

#include "CSystem.h"

int coif_o_tmpfile(void) {
#ifdef O_TMPFILE
    return O_TMPFILE;
#else
    return 0;
#endif
}
