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

static void ck_zero_vector_registers(void);

// Not inlined, so that the scratch array lies below the caller's frame.
__attribute__((noinline)) void ck_scrub_stack(size_t count) {
    ck_zero_vector_registers();
    unsigned char scratch[count > 0 ? count : 1];
    explicit_bzero(scratch, sizeof scratch);
}

// Zeroes every vector register. They are caller-saved on x86-64, so the function needs no care for its caller;
// on arm64 v8-v15 are callee-saved in their low halves, which the clobbers make the compiler save and restore.
#if defined(__x86_64__)
#include <cpuid.h>
#include <stdatomic.h>

#define CK_XMM "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", \
    "xmm12", "xmm13", "xmm14", "xmm15"
#define CK_XMM_HIGH "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", \
    "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31"

// AVX-512: registers 16-31 take one instruction each; vzeroall, last, clears 0-15 whole and leaves their upper
// halves in their initial state (no penalty for SSE code after).
__attribute__((target("avx512f"), noinline)) static void ck_zero_avx512(void) {
    __asm__ volatile(
        "vpxord %%zmm16, %%zmm16, %%zmm16\n\t vpxord %%zmm17, %%zmm17, %%zmm17\n\t"
        "vpxord %%zmm18, %%zmm18, %%zmm18\n\t vpxord %%zmm19, %%zmm19, %%zmm19\n\t"
        "vpxord %%zmm20, %%zmm20, %%zmm20\n\t vpxord %%zmm21, %%zmm21, %%zmm21\n\t"
        "vpxord %%zmm22, %%zmm22, %%zmm22\n\t vpxord %%zmm23, %%zmm23, %%zmm23\n\t"
        "vpxord %%zmm24, %%zmm24, %%zmm24\n\t vpxord %%zmm25, %%zmm25, %%zmm25\n\t"
        "vpxord %%zmm26, %%zmm26, %%zmm26\n\t vpxord %%zmm27, %%zmm27, %%zmm27\n\t"
        "vpxord %%zmm28, %%zmm28, %%zmm28\n\t vpxord %%zmm29, %%zmm29, %%zmm29\n\t"
        "vpxord %%zmm30, %%zmm30, %%zmm30\n\t vpxord %%zmm31, %%zmm31, %%zmm31\n\t"
        "vzeroall"
        ::: CK_XMM, CK_XMM_HIGH);
}

__attribute__((target("avx"), noinline)) static void ck_zero_avx(void) {
    __asm__ volatile("vzeroall" ::: CK_XMM);
}

__attribute__((noinline)) static void ck_zero_sse(void) {
    __asm__ volatile(
        "pxor %%xmm0, %%xmm0\n\t pxor %%xmm1, %%xmm1\n\t pxor %%xmm2, %%xmm2\n\t pxor %%xmm3, %%xmm3\n\t"
        "pxor %%xmm4, %%xmm4\n\t pxor %%xmm5, %%xmm5\n\t pxor %%xmm6, %%xmm6\n\t pxor %%xmm7, %%xmm7\n\t"
        "pxor %%xmm8, %%xmm8\n\t pxor %%xmm9, %%xmm9\n\t pxor %%xmm10, %%xmm10\n\t pxor %%xmm11, %%xmm11\n\t"
        "pxor %%xmm12, %%xmm12\n\t pxor %%xmm13, %%xmm13\n\t pxor %%xmm14, %%xmm14\n\t pxor %%xmm15, %%xmm15"
        ::: CK_XMM);
}

// Which registers the processor has and the kernel saves (XCR0): 0 SSE only, 1 AVX, 2 AVX-512. Asked on first
// use, not at start-up (libgcc's __builtin_cpu_supports would add a constructor to every program: cpuid traps to
// the hypervisor in a virtual machine, and a command's start is timed).
static int ck_vector_extension(void) {
    static _Atomic int known = -1;
    int extension = atomic_load_explicit(&known, memory_order_relaxed);
    if (extension >= 0) return extension;
    extension = 0;
    unsigned int a, b, c, d;
    if (__get_cpuid(1, &a, &b, &c, &d) && (c & bit_OSXSAVE) && (c & bit_AVX)) {
        unsigned int low, high;
        __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
        if ((low & 0x6) == 0x6) {
            extension = 1;
            if ((low & 0xe0) == 0xe0 && __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX512F)) extension = 2;
        }
    }
    atomic_store_explicit(&known, extension, memory_order_relaxed);
    return extension;
}

static void ck_zero_vector_registers(void) {
    switch (ck_vector_extension()) {
    case 2: ck_zero_avx512(); break;
    case 1: ck_zero_avx(); break;
    default: ck_zero_sse(); break;
    }
}
#elif defined(__aarch64__)
static void ck_zero_vector_registers(void) {
    __asm__ volatile(
        "movi v0.16b, #0\n\t movi v1.16b, #0\n\t movi v2.16b, #0\n\t movi v3.16b, #0\n\t"
        "movi v4.16b, #0\n\t movi v5.16b, #0\n\t movi v6.16b, #0\n\t movi v7.16b, #0\n\t"
        "movi v8.16b, #0\n\t movi v9.16b, #0\n\t movi v10.16b, #0\n\t movi v11.16b, #0\n\t"
        "movi v12.16b, #0\n\t movi v13.16b, #0\n\t movi v14.16b, #0\n\t movi v15.16b, #0\n\t"
        "movi v16.16b, #0\n\t movi v17.16b, #0\n\t movi v18.16b, #0\n\t movi v19.16b, #0\n\t"
        "movi v20.16b, #0\n\t movi v21.16b, #0\n\t movi v22.16b, #0\n\t movi v23.16b, #0\n\t"
        "movi v24.16b, #0\n\t movi v25.16b, #0\n\t movi v26.16b, #0\n\t movi v27.16b, #0\n\t"
        "movi v28.16b, #0\n\t movi v29.16b, #0\n\t movi v30.16b, #0\n\t movi v31.16b, #0"
        ::: "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15",
        "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30",
        "v31");
}
#else
// Elsewhere the stack is still zeroed; what the registers hold may reach it through a later save.
static void ck_zero_vector_registers(void) {}
#endif

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
