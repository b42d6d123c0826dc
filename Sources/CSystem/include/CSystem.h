// CSystem: Linux constants that Swift's Glibc module does not import (macro expressions), read from the
// C headers of the machine that builds Coif, so each architecture gets its own value (O_TMPFILE is
// 020200000 on x86-64 and 020040000 on aarch64).
#ifndef COIF_CSYSTEM_H
#define COIF_CSYSTEM_H

// open(2)'s O_TMPFILE (an unnamed file in a directory, linked in once whole); 0 where the C library has none.
int coif_o_tmpfile(void);

// Names the calling thread (pthread_setname_np, a GNU extension Swift's Glibc module does not import);
// Linux keeps the first 15 bytes.
void coif_name_this_thread(const char *name);

#include <stddef.h>

// The heap's bytes in use (glibc's mallinfo2().uordblks): what a test reads to see a structure's size.
size_t coif_heap_bytes_in_use(void);

#endif
