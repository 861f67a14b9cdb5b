#define _GNU_SOURCE
#include "CSystem.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <nss.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

int ck_disable_core_dumps(void) {
    int failure = 0;
    struct rlimit none = {0, 0};
    if (setrlimit(RLIMIT_CORE, &none) != 0) failure = errno;
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 && failure == 0) failure = errno;
    if (failure == 0) return 0;
    errno = failure;
    return -1;
}

int ck_is_dumpable(void) {
    return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
}

int ck_is_secure_execution(void) {
    return getauxval(AT_SECURE) != 0;
}

const char *ck_secure_getenv(const char *name) {
    return secure_getenv(name);
}

int ck_open_unnamed(const char *directory, mode_t mode) {
    return open(directory, O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
}

int ck_link_unnamed(int descriptor, const char *path) {
    char procPath[64];
    snprintf(procPath, sizeof procPath, "/proc/self/fd/%d", descriptor);
    return linkat(AT_FDCWD, procPath, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
}

void ck_zero(void *bytes, size_t count) {
    if (count > 0) explicit_bzero(bytes, count);
}

__attribute__((noinline)) void ck_scrub_stack(void) {
    unsigned char scratch[64 * 1024];
    explicit_bzero(scratch, sizeof scratch);
}

// The executable's dynamic section: defined by the linker in every dynamically linked program, absent (so the weak
// reference is null) in a statically linked one.
extern ElfW(Dyn) _DYNAMIC[] __attribute__((weak));

int ck_process_is_static(void) { return _DYNAMIC == NULL; }

int ck_nss_use_files_only(void) {
    int passwd = __nss_configure_lookup("passwd", "files");
    int group = __nss_configure_lookup("group", "files");
    return passwd == 0 && group == 0 ? 0 : -1;
}

int ck_rename_noreplace(const char *source, const char *destination) {
    return renameat2(AT_FDCWD, source, AT_FDCWD, destination, RENAME_NOREPLACE);
}

int ck_syncfs(int descriptor) { return syncfs(descriptor); }
