/* malloc_count: an LD_PRELOAD interposer that counts the process's glibc heap allocations, for
 * the bindings' floor hosts (benches/bindings/): the host's side — the binding, its language
 * runtime and libc. librobota.so's own calls are not counted (its allocator takes a host thread's
 * blocks from malloc, src/ffi/allocator.rs): a call whose return address lies in librobota's
 * code, found once at load with dl_iterate_phdr, is skipped.
 *
 *   gcc -O2 -shared -fPIC -o malloc_count.so malloc_count.c -ldl
 *   LD_PRELOAD=$PWD/malloc_count.so HOST ...
 *
 * Counted: malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign (one each, with an
 * atomic); each is forwarded to the next definition (dlsym(RTLD_NEXT)). dlsym itself may
 * calloc before the real functions are known: such calls are served from a static bootstrap
 * buffer, which free ignores. The host reads the count with
 *   uint64_t floor_malloc_count(void)   (looked up with dlsym(RTLD_DEFAULT, ...): absent = not preloaded)
 * With FLOOR_MALLOC_REPORT set, the process's total is also printed to stderr at exit (for a host
 * that does not read it, e.g. benches/floor/host.c).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Atomic uint64_t count;

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);

/* What dlsym allocates while the real functions are being looked up. */
static _Alignas(64) char bootstrap[16384];
static _Atomic size_t bootstrap_used;
static _Atomic int resolving;

static int in_bootstrap(const void *p) {
    return (const char *)p >= bootstrap && (const char *)p < bootstrap + sizeof bootstrap;
}

static void *bootstrap_alloc(size_t n) {
    n = (n + 15) & ~(size_t)15;
    size_t at = atomic_fetch_add(&bootstrap_used, n);
    return at + n <= sizeof bootstrap ? bootstrap + at : NULL; /* zeroed: static storage */
}

static void resolve(void) {
    if (real_malloc) return;
    atomic_store(&resolving, 1);
    real_calloc = dlsym(RTLD_NEXT, "calloc");
    real_realloc = dlsym(RTLD_NEXT, "realloc");
    real_free = dlsym(RTLD_NEXT, "free");
    real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
    real_memalign = dlsym(RTLD_NEXT, "memalign");
    void *(*m)(size_t) = dlsym(RTLD_NEXT, "malloc");
    atomic_store(&resolving, 0);
    real_malloc = m; /* last: it marks the table complete */
}

/* librobota.so's executable segments (an empty range until found). */
static uintptr_t library_lo, library_hi;

static int find_library(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    (void)data;
    if (!info->dlpi_name || !strstr(info->dlpi_name, "librobota")) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (!library_lo || lo < library_lo) library_lo = lo;
        if (hi > library_hi) library_hi = hi;
    }
    return 1;
}

static int from_library(const void *caller) {
    return (uintptr_t)caller >= library_lo && (uintptr_t)caller < library_hi;
}

__attribute__((constructor)) static void init(void) {
    resolve();
    dl_iterate_phdr(find_library, NULL);
}

__attribute__((destructor)) static void report(void) {
    if (getenv("FLOOR_MALLOC_REPORT"))
        fprintf(stderr, "malloc_count: %llu\n", (unsigned long long)atomic_load(&count));
}

uint64_t floor_malloc_count(void) { return atomic_load_explicit(&count, memory_order_relaxed); }

/* Counts the calling function's allocation unless librobota.so made it. */
#define COUNT()                                                              \
    do {                                                                     \
        if (!from_library(__builtin_return_address(0)))                      \
            atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);      \
    } while (0)

void *malloc(size_t n) {
    if (!real_malloc) {
        if (atomic_load(&resolving)) return bootstrap_alloc(n);
        resolve();
    }
    COUNT();
    return real_malloc(n);
}

void *calloc(size_t k, size_t n) {
    if (!real_malloc) {
        if (atomic_load(&resolving)) return n && k > SIZE_MAX / n ? NULL : bootstrap_alloc(k * n);
        resolve();
    }
    COUNT();
    return real_calloc(k, n);
}

void *realloc(void *p, size_t n) {
    if (!real_malloc) {
        if (atomic_load(&resolving)) return bootstrap_alloc(n); /* dlsym never reallocs in practice */
        resolve();
    }
    if (in_bootstrap(p)) { /* moves a bootstrap block to the real heap (its size is unknown: copy what fits) */
        void *q = malloc(n);
        size_t left = (size_t)(bootstrap + sizeof bootstrap - (char *)p);
        if (q) memcpy(q, p, n < left ? n : left);
        return q;
    }
    COUNT();
    return real_realloc(p, n);
}

void free(void *p) {
    if (!p || in_bootstrap(p)) return;
    if (!real_free) resolve();
    real_free(p);
}

int posix_memalign(void **out, size_t align, size_t n) {
    if (!real_malloc) resolve();
    COUNT();
    return real_posix_memalign(out, align, n);
}

void *aligned_alloc(size_t align, size_t n) {
    if (!real_malloc) resolve();
    COUNT();
    return real_aligned_alloc(align, n);
}

void *memalign(size_t align, size_t n) {
    if (!real_malloc) resolve();
    COUNT();
    return real_memalign(align, n);
}
