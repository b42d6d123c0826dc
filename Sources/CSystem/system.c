// system.c: see CSystem.h.
#define _GNU_SOURCE
#include <malloc.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>

#include "CSystem.h"

int coif_o_tmpfile(void) {
#ifdef O_TMPFILE
    return O_TMPFILE;
#else
    return 0;
#endif
}

void coif_name_this_thread(const char *name) {
    char shortened[16];
    strncpy(shortened, name, sizeof shortened - 1);
    shortened[sizeof shortened - 1] = 0;
    pthread_setname_np(pthread_self(), shortened);
}

size_t coif_heap_bytes_in_use(void) {
    return mallinfo2().uordblks;
}
