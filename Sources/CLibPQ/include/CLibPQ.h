// libpq's API, loaded on first use rather than linked: linking libpq (and the 25 libraries it needs) made every
// process of the `security` command about 6 ms slower to start, sync or not. libpq_loader.c defines each function
// the stores call as a trampoline into libpq.so.5, opened with dlopen by ck_libpq_load.
#ifndef CK_LIBPQ_H
#define CK_LIBPQ_H

#include <stddef.h>
#include "/usr/include/postgresql/libpq-fe.h"

// Opens libpq.so.5 and resolves every function the stores use, once per process (thread-safe). Returns 1 when they
// are all there, else 0 with the reason in `error` (dlerror's, or the missing function's name). No other function of
// this module may be called before it has returned 1.
int ck_libpq_load(char *error, size_t size);

#endif
