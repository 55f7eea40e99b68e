/* The yardsticks for "this class of machine", measured on the machine
 * at hand: (1) reading 8-byte records from memory, (2) a plain C loop for one
 * 32 KB 8-way LRU cache with 64-byte lines, (3) the same plain loop for
 * jm-base's four direct-mapped caches (8K/8K L1, 512K/512K L2, 16-byte lines,
 * write-back, no ASIDs, no line-crossing split, no fetch dropping), all over
 * every word of a trace held in memory (`words` writes the file). Not a
 * simulator: it exists so that vmlab's rate can be read against what the
 * same host does with the simplest possible code.
 *
 *   cc -O2 -o cloop bench/baseline/cloop.c && ./cloop TRACE.u64 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ADDR_MASK ((1ULL << 56) - 1)
#define OP(w) ((unsigned)((w) >> 56))

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t sum_words(const uint64_t *w, size_t n) {
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++) s += w[i] & ADDR_MASK;
    return s;
}

/* 32 KB, 8 ways, 64-byte lines: 64 sets. */
#define SETS8 64
static uint64_t tag8[SETS8][8];
static uint64_t stamp8[SETS8][8];

static uint64_t assoc8(const uint64_t *w, size_t n) {
    uint64_t misses = 0, clock = 0;
    memset(tag8, 0xff, sizeof tag8);
    memset(stamp8, 0, sizeof stamp8);
    for (size_t i = 0; i < n; i++) {
        uint64_t line = (w[i] & ADDR_MASK) >> 6;
        unsigned set = line & (SETS8 - 1);
        uint64_t *t = tag8[set], *s = stamp8[set];
        int hit = -1;
        for (int k = 0; k < 8; k++)
            if (t[k] == line) { hit = k; break; }
        if (hit < 0) {
            misses++;
            int v = 0;
            for (int k = 1; k < 8; k++)
                if (s[k] < s[v]) v = k;
            t[v] = line;
            hit = v;
        }
        s[hit] = ++clock;
    }
    return misses;
}

/* jm-base without its refinements. A word's op is an index into vmlab's
 * direct-op table (crates/trace/src/vmt/format.rs, DIRECT): ops 0..=14 are
 * fetches, 15..=20 loads, 21..=26 stores and 27..=30 modifies (a store here);
 * an escape word (op 0xff, rare) counts as a load. */
#define IFETCH_OPS 0x00007fffu
#define STORE_OPS  0x7fe00000u
#define L1 512     /* 8K / 16 */
#define L2 32768   /* 512K / 16 */
static uint64_t l1i[L1], l1d[L1], l2i[L2], l2d[L2];
static uint8_t d1[L1], d2[L2];

static uint64_t direct4(const uint64_t *w, size_t n) {
    uint64_t misses = 0;
    memset(l1i, 0xff, sizeof l1i); memset(l1d, 0xff, sizeof l1d);
    memset(l2i, 0xff, sizeof l2i); memset(l2d, 0xff, sizeof l2d);
    memset(d1, 0, sizeof d1); memset(d2, 0, sizeof d2);
    for (size_t i = 0; i < n; i++) {
        unsigned op = OP(w[i]) & 31; /* 0xff -> 31: neither mask */
        uint64_t line = (w[i] & ADDR_MASK) >> 4;
        unsigned s1 = line & (L1 - 1), s2 = line & (L2 - 1);
        if (IFETCH_OPS >> op & 1) {
            if (l1i[s1] != line) {
                misses++;
                if (l2i[s2] != line) { misses++; l2i[s2] = line; }
                l1i[s1] = line;
            }
        } else {
            int st = STORE_OPS >> op & 1;
            if (l1d[s1] != line) {
                misses++;
                if (d1[s1]) { /* write the victim back to L2 */
                    uint64_t v = l1d[s1];
                    unsigned v2 = v & (L2 - 1);
                    if (l2d[v2] != v) { misses++; l2d[v2] = v; }
                    d2[v2] = 1;
                }
                if (l2d[s2] != line) { misses++; d2[s2] = 0; l2d[s2] = line; }
                l1d[s1] = line;
                d1[s1] = 0;
            }
            d1[s1] |= st;
        }
    }
    return misses;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: cloop TRACE.u64\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 2; }
    fseek(f, 0, SEEK_END);
    long bytes = ftell(f);
    fseek(f, 0, SEEK_SET);
    size_t n = bytes / 8;
    uint64_t *w = malloc(n * 8);
    if (!w || fread(w, 8, n, f) != n) { fprintf(stderr, "%s: short read\n", argv[1]); return 2; }
    fclose(f);
    sum_words(w, n); /* fault the pages in before timing */
    double t0 = now();
    uint64_t s = sum_words(w, n);
    double t1 = now();
    uint64_t m8 = assoc8(w, n);
    double t2 = now();
    uint64_t md = direct4(w, n);
    double t3 = now();
    printf("%-52s %10zu refs  %7.1f M refs/s  (checksum %llx)\n", "C: reading 8-byte records from memory", n, n / (t1 - t0) / 1e6, (unsigned long long)s);
    printf("%-52s %10zu refs  %7.1f M refs/s  (%llu misses)\n", "C: one 32K 8-way LRU cache, 64 B lines", n, n / (t2 - t1) / 1e6, (unsigned long long)m8);
    printf("%-52s %10zu refs  %7.1f M refs/s  (%llu misses)\n", "C: jm-base's four direct-mapped caches, bare", n, n / (t3 - t2) / 1e6, (unsigned long long)md);
    return 0;
}
