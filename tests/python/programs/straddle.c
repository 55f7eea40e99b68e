/* A small deterministic program for the Cachegrind comparison
   (tests/python/test_compat.py): a few hundred thousand references, many of
   which cross cache lines. Fields of a packed record sit at odd offsets, so
   its 8-byte loads and stores straddle 16-, 32- and 64-byte lines; a table
   walked with a stride larger than a line gives conflict misses; the
   read-modify-write of `counts` gives x86 modify accesses. No input, no
   time, no randomness beyond a fixed linear congruential sequence. */
#include <stdint.h>
#include <string.h>

#define N 3000

struct __attribute__((packed)) rec {
    uint8_t tag;
    uint64_t key;   /* offset 1: crosses a line whenever 1 + 13 i mod line > line - 8 */
    uint32_t val;
};

static struct rec recs[N];
static uint32_t counts[257];
static uint64_t table[64][40];
volatile uint64_t sink; /* keeps the work from being optimised away */

int main(void) {
    uint64_t x = 12345;
    for (int i = 0; i < N; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        recs[i].tag = (uint8_t)(x >> 56);
        recs[i].key = x;
        recs[i].val = (uint32_t)(x >> 20);
    }
    uint64_t sum = 0;
    for (int pass = 0; pass < 4; pass++) {
        for (int i = 0; i < N; i++) {
            sum += recs[i].key ^ recs[(i * 7 + pass) % N].val;
            counts[recs[i].tag] += 1;
            recs[i].key += sum;
        }
        for (int c = 0; c < 40; c++)
            for (int r = 0; r < 64; r++)
                table[r][c] += sum + (uint64_t)r;
    }
    memmove((char *)recs + 3, recs, sizeof recs / 2);
    for (int i = 0; i < 257; i++)
        sum += counts[i];
    sink = sum;
    return 0;
}
