/* The S1 large-footprint workload: an in-memory hash join.
 *
 *     hashjoin TABLE_MB ROWS
 *
 * Builds a hash table of TABLE_MB megabytes (16-byte slots, open addressing
 * with linear probing) from ROWS rows of relation R, then probes it with ROWS
 * rows of relation S (half of whose keys are in R) and sums the payloads of
 * the matches. Keys are splitmix64 hashes of the row number, so slots are hit
 * in a pseudo-random order: every build and probe touches a page unrelated
 * to the last one, which is what a hash join over a table far larger than
 * the caches and the TLB reach does. Deterministic: no seed, no clock, no
 * address-dependent behaviour. Prints the match count and checksum. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct slot { uint64_t key; uint64_t payload; };   /* key 0 = empty */

static uint64_t splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Row i of R has key splitmix64(i) | 1 (never 0, the empty marker). */
static uint64_t r_key(uint64_t i) { return splitmix64(i) | 1; }

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s TABLE_MB ROWS\n", argv[0]);
        return 2;
    }
    uint64_t mb = strtoull(argv[1], NULL, 10), rows = strtoull(argv[2], NULL, 10);
    uint64_t slots = 1;
    while (slots * sizeof(struct slot) < mb << 20) slots <<= 1;
    if (mb == 0 || rows == 0 || rows > slots / 2) {
        fprintf(stderr, "%s: need TABLE_MB > 0 and 0 < ROWS <= %llu slots / 2\n", argv[0],
                (unsigned long long)slots);
        return 2;
    }
    /* calloc of this size is a fresh anonymous mapping: zero pages the
     * program touches only when it probes or fills them. */
    struct slot *table = calloc(slots, sizeof *table);
    if (!table) {
        fprintf(stderr, "%s: cannot allocate %llu MB\n", argv[0], (unsigned long long)mb);
        return 1;
    }
    uint64_t mask = slots - 1;

    /* Build: insert R. */
    for (uint64_t i = 0; i < rows; i++) {
        uint64_t k = r_key(i), h = (k >> 17) & mask;
        while (table[h].key != 0 && table[h].key != k) h = (h + 1) & mask;
        table[h].key = k;
        table[h].payload = i * 3 + 1;
    }

    /* Probe: S's row j has R's key of row j + rows / 2 (present for the
     * first half, absent for the second). */
    uint64_t matches = 0, sum = 0, probes = 0;
    for (uint64_t j = 0; j < rows; j++) {
        uint64_t k = r_key(j + rows / 2), h = (k >> 17) & mask;
        for (;;) {
            probes++;
            if (table[h].key == k) {
                matches++;
                sum += table[h].payload;
                break;
            }
            if (table[h].key == 0) break;
            h = (h + 1) & mask;
        }
    }
    printf("slots %llu rows %llu matches %llu probes %llu checksum %llu\n", (unsigned long long)slots,
           (unsigned long long)rows, (unsigned long long)matches, (unsigned long long)probes,
           (unsigned long long)sum);
    free(table);
    return 0;
}
