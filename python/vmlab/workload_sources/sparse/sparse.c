/* The S1 sparse-address-space workload.
 *
 *     sparse REGIONS THREADS STEPS
 *
 * Lays out an address space the way a large modern process does, then works
 * across all of it:
 *  - dlopens LIBS below (shared libraries every Debian machine that runs
 *    vmlab has: the base system's, plus those python3 pulls in) and reads one
 *    word of every page of every loaded object's segments;
 *  - maps REGIONS anonymous 64 KB regions at fixed, spread-out addresses
 *    (MAP_FIXED_NOREPLACE): half below 2 GB, each in its own 4 MB-aligned
 *    slot 24 MB apart, half above 4 GB, each in its own 1 GB region. A slot
 *    that is taken (by the loader or valgrind) is skipped;
 *  - runs THREADS workers, one after the other, each on its own 256 KB stack
 *    mapped at its own spread-out address; each recurses 32 frames deep with
 *    a 1 KB frame (touching its stack), then takes STEPS pseudo-random steps
 *    over all the regions (a load, a store, and every 64th step zlib's crc32
 *    over 256 bytes of the region).
 * The workers are ucontext coroutines (makecontext/swapcontext), not
 * pthreads. As threads they already ran one at a time (create, join), but
 * under valgrind which thread runs after clone, and whether pthread_join
 * finds the thread already gone, is the host scheduler's choice: a few
 * hundred references moved from capture to capture (docs/workloads.md,
 * Determinism). A coroutine is entered and left where the program says, so
 * the trace is the same file every time, while the address space keeps
 * what the threads gave it: a 256 KB stack per worker at its own address.
 * They still run one after another, not interleaved, as the threads did.
 * (The stacks were the program's own before too, given by
 * pthread_attr_setstack, for which glibc adds no guard page; what is gone
 * is the thread descriptor and TLS block glibc put at each stack's top.)
 * No stack is reused.
 * Prints the number of libraries, regions and a checksum. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

static const char *const LIBS[] = {
    "libz.so.1", "libbz2.so.1.0", "liblzma.so.5", "libzstd.so.1", "liblz4.so.1",
    "libm.so.6", "libcrypt.so.1", "libgmp.so.10", "libpcre2-8.so.0", "libselinux.so.1",
    "libacl.so.1", "libattr.so.1", "libcap.so.2", "libtinfo.so.6", "libuuid.so.1",
    "libblkid.so.1", "libmount.so.1", "libsmartcols.so.1", "libudev.so.1", "libsystemd.so.0",
    "libgcrypt.so.20", "libgpg-error.so.0", "libstdc++.so.6", "libgcc_s.so.1", "libmd.so.0",
    "libaudit.so.1", "libpam.so.0", "libffi.so.8", "libexpat.so.1", "libsqlite3.so.0",
};
#define NLIBS (sizeof LIBS / sizeof LIBS[0])

#define REGION_BYTES (64u << 10)
#define STACK_BYTES (256u << 10)
#define PAGE 4096u
#define MAX_REGIONS 1024
#define MAX_THREADS 64

typedef unsigned long (*crc32_fn)(unsigned long, const unsigned char *, unsigned);

static unsigned char *regions[MAX_REGIONS];
static unsigned nregions;
static unsigned long steps;
static crc32_fn zcrc32;

static uint64_t next_rand(uint64_t *s) {   /* xorshift64*: deterministic */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545f4914f6cdd1dull;
}

/* Maps `bytes` at the first free address of `want`, `want + stride`, ...
 * (at most `tries` of them). Returns NULL if all were taken. */
static void *map_at(uintptr_t want, uintptr_t stride, unsigned tries, size_t bytes) {
    for (unsigned t = 0; t < tries; t++, want += stride) {
        void *p = mmap((void *)want, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (p == (void *)want) return p;
        if (p != MAP_FAILED) munmap(p, bytes);   /* a kernel that ignored the flag */
    }
    return NULL;
}

static uint64_t page_sum;

static int touch_object(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    (void)data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R)) continue;
        uintptr_t lo = (info->dlpi_addr + ph->p_vaddr) & ~(uintptr_t)(PAGE - 1);
        uintptr_t hi = info->dlpi_addr + ph->p_vaddr + ph->p_filesz;   /* file-backed part only */
        for (uintptr_t a = lo; a < hi; a += PAGE) page_sum += *(volatile const unsigned char *)a;
    }
    return 0;
}

/* 32 frames of 1 KB each: the worker's stack grows by ~32 KB and every
 * frame's bytes are written and read. */
static uint64_t deep(unsigned depth, uint64_t seed) {
    volatile unsigned char frame[1024];
    for (unsigned i = 0; i < sizeof frame; i += 64) frame[i] = (unsigned char)(seed + i);
    uint64_t below = depth ? deep(depth - 1, seed * 31 + depth) : 0;
    uint64_t s = below;
    for (unsigned i = 0; i < sizeof frame; i += 64) s += frame[i];
    return s;
}

/* The main program's context while a worker runs, and the worker's result
 * (a makecontext function takes int arguments and returns nothing). */
static ucontext_t main_ctx;
static uint64_t worker_result;

static void worker(int worker_id) {
    uint64_t id = (uint64_t)worker_id, rng = 0x9e3779b97f4a7c15ull * (id + 1), acc = deep(32, id);
    for (unsigned long k = 0; k < steps; k++) {
        uint64_t r = next_rand(&rng);
        unsigned char *base = regions[r % nregions];
        uint64_t off = (r >> 20) % (REGION_BYTES / 8) * 8;
        acc += *(volatile uint64_t *)(base + off);
        *(volatile uint64_t *)(base + ((off + 4096) % REGION_BYTES)) = acc;
        if (k % 64 == 0) acc += zcrc32(acc, base + (off & ~255ull) % (REGION_BYTES - 256), 256);
    }
    worker_result = acc;   /* returning resumes main_ctx (uc_link) */
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s REGIONS THREADS STEPS\n", argv[0]);
        return 2;
    }
    unsigned want_regions = (unsigned)strtoul(argv[1], NULL, 10), threads = (unsigned)strtoul(argv[2], NULL, 10);
    steps = strtoul(argv[3], NULL, 10);
    if (want_regions < 2 || want_regions > MAX_REGIONS || threads < 1 || threads > MAX_THREADS) {
        fprintf(stderr, "%s: need 2 <= REGIONS <= %d and 1 <= THREADS <= %d\n", argv[0], MAX_REGIONS, MAX_THREADS);
        return 2;
    }

    for (size_t i = 0; i < NLIBS; i++) {
        if (!dlopen(LIBS[i], RTLD_LAZY | RTLD_GLOBAL)) {
            fprintf(stderr, "%s: cannot load %s: %s\n", argv[0], LIBS[i], dlerror());
            return 1;
        }
    }
    zcrc32 = (crc32_fn)dlsym(RTLD_DEFAULT, "crc32");
    if (!zcrc32) {
        fprintf(stderr, "%s: libz has no crc32: %s\n", argv[0], dlerror());
        return 1;
    }
    dl_iterate_phdr(touch_object, NULL);

    /* Low half: 24 MB apart from 256 MB up (each in its own 4 MB slot, all
     * below 2 GB for 32-bit page-table layouts); high half: 1 GB + 4 MB apart
     * from 64 GB up. Each region's pages are all written once. */
    unsigned low = want_regions / 2;
    for (unsigned i = 0; i < want_regions; i++) {
        uintptr_t at = i < low ? 0x10000000u + (uintptr_t)i * 0x1800000u
                               : 0x1000000000ull + (uintptr_t)(i - low) * 0x40400000ull;
        unsigned char *p = map_at(at, 0x400000u, 8, REGION_BYTES);
        if (!p) continue;
        for (unsigned off = 0; off < REGION_BYTES; off += PAGE) p[off] = (unsigned char)(i + off / PAGE);
        regions[nregions++] = p;
    }
    if (nregions < 2) {
        fprintf(stderr, "%s: could only map %u regions\n", argv[0], nregions);
        return 1;
    }

    uint64_t checksum = page_sum;
    for (unsigned t = 0; t < threads; t++) {
        /* Worker stacks between the two region bands: 2.5 GB up, 20 MB apart. */
        void *stack = map_at(0xa0000000u + (uintptr_t)t * 0x1400000u, 0x400000u, 8, STACK_BYTES);
        ucontext_t work;
        if (!stack || getcontext(&work)) {
            fprintf(stderr, "%s: cannot run worker %u (%s)\n", argv[0], t, strerror(errno));
            return 1;
        }
        work.uc_stack.ss_sp = stack;
        work.uc_stack.ss_size = STACK_BYTES;
        work.uc_link = &main_ctx;
        makecontext(&work, (void (*)(void))worker, 1, (int)t);
        if (swapcontext(&main_ctx, &work)) {
            fprintf(stderr, "%s: cannot run worker %u (%s)\n", argv[0], t, strerror(errno));
            return 1;
        }
        checksum += worker_result;
    }
    printf("libraries %zu regions %u threads %u checksum %llu\n", NLIBS, nregions, threads,
           (unsigned long long)checksum);
    return 0;
}
