// System calls Swift's Glibc module does not import (they need _GNU_SOURCE): process hardening, unnamed files,
// and zeroing that the compiler cannot remove.
#ifndef CSYSTEM_H
#define CSYSTEM_H

#include <stddef.h>
#include <sys/types.h>

/// Makes the calling process leave no core dump: RLIMIT_CORE 0 (soft and hard) and PR_SET_DUMPABLE 0 (which also
/// keeps other processes of the same user from tracing it or reading its memory). Returns 0, or -1 with errno set
/// by the first call that failed (both are always attempted).
int ck_disable_core_dumps(void);

/// 1 when this program is linked statically (it has no dynamic section): it cannot load shared libraries safely
/// (dlopen would map a second C library), so libpq and glibc's NSS modules are out of its reach.
int ck_process_is_static(void);

/// Makes this process's user and group lookups (getpwnam, getpwuid, getgrnam) read /etc/passwd and /etc/group
/// only, whatever nsswitch.conf says: a static program would otherwise dlopen modules such as libnss_systemd for a
/// name the files lack, and crash. Returns 0, or -1.
int ck_nss_use_files_only(void);

/// Whether the calling process is dumpable (prctl PR_GET_DUMPABLE): 1, 0, or -1 with errno.
int ck_is_dumpable(void);

/// 1 when the kernel started this process with AT_SECURE (setuid, setgid or file capabilities; getauxval), else 0:
/// the loader then ignores LD_PRELOAD and its kin, and the process must trust nothing its environment says.
int ck_is_secure_execution(void);

/// getenv, except that it answers NULL in a process started with AT_SECURE (glibc's secure_getenv).
const char *ck_secure_getenv(const char *name);

/// Opens an unnamed regular file in `directory` (O_TMPFILE), for reading and writing, with `mode`; it vanishes
/// when closed unless linked first. Returns the descriptor (close-on-exec), or -1 with errno (EOPNOTSUPP,
/// EISDIR or EINVAL when the file system or kernel has no O_TMPFILE).
int ck_open_unnamed(const char *directory, mode_t mode);

/// Gives the unnamed file open as `descriptor` the name `path`, through /proc/self/fd (linkat with
/// AT_SYMLINK_FOLLOW, which needs no capability). Fails with EEXIST when `path` exists. Returns 0 or -1 with errno.
int ck_link_unnamed(int descriptor, const char *path);

/// Renames `source` to `destination` unless `destination` exists (renameat2 with RENAME_NOREPLACE). Returns 0, or
/// -1 with errno (EEXIST when it exists; ENOSYS or EINVAL where the kernel or file system cannot).
int ck_rename_noreplace(const char *source, const char *destination);

/// Flushes the whole file system that holds the open file `descriptor` (syncfs): one flush for many new files
/// instead of one fsync each. Returns 0 or -1 with errno.
int ck_syncfs(int descriptor);

/// Overwrites `count` bytes at `bytes` with zeros, in a way the compiler may not drop as a dead store.
void ck_zero(void *bytes, size_t count);

/// Zeroes the vector registers (x86-64: xmm/ymm/zmm, as many as the processor has; arm64: v0-v31), then `count`
/// bytes of the stack below the caller's frame: what primitives and dead frames left in either (a key copied
/// through vector registers, which the dynamic linker's lazy binding saves on the stack) does not outlive the call
/// that handled it. The registers go first: saved later, they would land above the part zeroed.
void ck_scrub_stack(size_t count);

#include "CSystemSocket.h"

#endif
