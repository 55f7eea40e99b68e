/* Study S4 on this machine: the copy routines of presets/copy/routines.toml
 * (and libc memcpy) timed natively at each of the nine cache-temperature
 * pairs, with the set-up vmlab's model uses for a multi-level cache
 * (crates/copy/src/experiment.rs, SetUp::Flushed):
 *
 *   every line of both buffers flushed (clflush: written back, invalidated
 *   at every level); a filler of FILLER bytes (twice the largest cache)
 *   written, one store a line, when either side is dirty, so the frames the
 *   copy allocates into hold dirty lines, or else read when a side is
 *   clean, so they hold clean lines (seed 004's definitions; it also lets
 *   the flushes finish: a line touched right after its clflush is slower
 *   than one in memory); then each hot side read.
 *
 * A cell is the minimum over N runs (seed 004's method: the least
 * interfered) of one copy of BYTES bytes, in TSC ticks (lfence; rdtsc
 * around it). Buffers are page-aligned and 8 KB apart, like the model's
 * `Apart`. Output: CSV `routine,src,dst,ticks` on stdout.
 *
 * Usage: copy_temps N FILLER_BYTES [BYTES]
 * Build: cc -O2 -fno-tree-vectorize -fno-tree-loop-distribute-patterns
 *        (so the word loops stay word loops; bench/copy_temps.py does it).
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

typedef void (*copy_fn)(uint8_t *restrict d, const uint8_t *restrict s, size_t n);

/* byte-loop: ldb, addib, stb */
static void __attribute__((noinline)) byte_loop(uint8_t *restrict d, const uint8_t *restrict s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        d[i] = s[i];
        __asm__ volatile("" ::: "memory"); /* keep it one byte an iteration */
    }
}

/* memcpy (seed 004's libc): four word loads, then four word stores */
static void __attribute__((noinline)) word4(uint8_t *restrict d, const uint8_t *restrict s, size_t n) {
    uint32_t *dw = (uint32_t *)d;
    const uint32_t *sw = (const uint32_t *)s;
    for (size_t i = 0; i < n / 4; i += 4) {
        uint32_t a = sw[i], b = sw[i + 1], c = sw[i + 2], e = sw[i + 3];
        __asm__ volatile("" ::: "memory");
        dw[i] = a, dw[i + 1] = b, dw[i + 2] = c, dw[i + 3] = e;
    }
}

/* 8Wld-8Wst: eight word loads, then eight word stores */
static void __attribute__((noinline)) word8(uint8_t *restrict d, const uint8_t *restrict s, size_t n) {
    uint32_t *dw = (uint32_t *)d;
    const uint32_t *sw = (const uint32_t *)s;
    for (size_t i = 0; i < n / 4; i += 8) {
        uint32_t a = sw[i], b = sw[i + 1], c = sw[i + 2], e = sw[i + 3];
        uint32_t f = sw[i + 4], g = sw[i + 5], h = sw[i + 6], j = sw[i + 7];
        __asm__ volatile("" ::: "memory");
        dw[i] = a, dw[i + 1] = b, dw[i + 2] = c, dw[i + 3] = e;
        dw[i + 4] = f, dw[i + 5] = g, dw[i + 6] = h, dw[i + 7] = j;
    }
}

/* simd64: 64 bytes loaded, then stored (two AVX registers) */
__attribute__((target("avx2"), noinline)) static void simd64(uint8_t *restrict d, const uint8_t *restrict s,
                                                               size_t n) {
    for (size_t i = 0; i < n; i += 64) {
        __m256i a = _mm256_load_si256((const __m256i *)(s + i));
        __m256i b = _mm256_load_si256((const __m256i *)(s + i + 32));
        _mm256_store_si256((__m256i *)(d + i), a);
        _mm256_store_si256((__m256i *)(d + i + 32), b);
    }
}

static void __attribute__((noinline)) libc_memcpy(uint8_t *restrict d, const uint8_t *restrict s, size_t n) {
    memcpy(d, s, n);
}

static const struct {
    const char *name;
    copy_fn fn;
} ROUTINES[] = {
    {"byte-loop", byte_loop}, {"memcpy", word4}, {"8Wld-8Wst", word8}, {"simd64", simd64}, {"libc-memcpy", libc_memcpy},
};
static const char *TEMPS[] = {"hot", "clean", "dirty"};
enum { HOT, CLEAN, DIRTY };

static void flush(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i += 64) _mm_clflush(p + i);
}

static void touch(const volatile uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i += 64) (void)p[i];
}

static uint64_t ticks(void) {
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: copy_temps N FILLER_BYTES [BYTES]\n");
        return 2;
    }
    long runs = atol(argv[1]);
    size_t filler_bytes = (size_t)atol(argv[2]);
    size_t bytes = argc > 3 ? (size_t)atol(argv[3]) : 4096;
    if (runs < 1 || bytes == 0 || bytes % 64) {
        fprintf(stderr, "copy_temps: N must be >= 1 and BYTES a multiple of 64\n");
        return 2;
    }
    if (!__builtin_cpu_supports("avx2")) {
        fprintf(stderr, "copy_temps: this CPU has no AVX2 (the simd64 loop needs it)\n");
        return 2;
    }
    /* Source at the start, destination 8 KB on (the model's Apart). */
    uint8_t *area = aligned_alloc(4096, 8192 + bytes + 4096);
    uint8_t *filler = aligned_alloc(4096, filler_bytes + 4096);
    if (!area || !filler) {
        fprintf(stderr, "copy_temps: out of memory\n");
        return 2;
    }
    uint8_t *src = area, *dst = area + 8192;
    memset(area, 1, 8192 + bytes);
    memset(filler, 2, filler_bytes);
    printf("routine,src,dst,ticks\n");
    for (size_t r = 0; r < sizeof ROUTINES / sizeof ROUTINES[0]; r++) {
        for (int st = HOT; st <= DIRTY; st++) {
            for (int dt = HOT; dt <= DIRTY; dt++) {
                uint64_t best = UINT64_MAX;
                for (long k = 0; k < runs; k++) {
                    flush(src, bytes);
                    flush(dst, bytes);
                    _mm_mfence();
                    if (st == DIRTY || dt == DIRTY) {
                        for (size_t i = 0; i < filler_bytes; i += 64) filler[i] = (uint8_t)k;
                    } else if (st == CLEAN || dt == CLEAN) {
                        touch(filler, filler_bytes);
                    }
                    if (st == HOT) touch(src, bytes);
                    if (dt == HOT) touch(dst, bytes);
                    _mm_mfence();
                    uint64_t t0 = ticks();
                    ROUTINES[r].fn(dst, src, bytes);
                    uint64_t t1 = ticks();
                    if (t1 - t0 < best) best = t1 - t0;
                }
                printf("%s,%s,%s,%llu\n", ROUTINES[r].name, TEMPS[st], TEMPS[dt], (unsigned long long)best);
            }
        }
    }
    free(area);
    free(filler);
    return 0;
}
