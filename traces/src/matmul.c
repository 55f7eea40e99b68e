/* The small real program `make reproduce` traces under valgrind: a blocked
 * matrix multiply (three 128 KB matrices: more than any L1, about an L2),
 * a quicksort of 16 K integers and a summary pass. About 28 million
 * references. Built and traced by `make reproduce`. */
#include <stddef.h>

#define N 128
#define B 16

static double a[N][N], b[N][N], c[N][N];

static void fill(double m[N][N], unsigned seed)
{
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < N; j++) {
            seed = seed * 1103515245u + 12345u;
            m[i][j] = (double)(seed >> 16) / 65536.0;
        }
}

static void matmul_blocked(void)
{
    for (size_t ii = 0; ii < N; ii += B)
        for (size_t kk = 0; kk < N; kk += B)
            for (size_t jj = 0; jj < N; jj += B)
                for (size_t i = ii; i < ii + B; i++)
                    for (size_t k = kk; k < kk + B; k++) {
                        double r = a[i][k];
                        for (size_t j = jj; j < jj + B; j++)
                            c[i][j] += r * b[k][j];
                    }
}

static void swap(int *x, int *y)
{
    int t = *x;
    *x = *y;
    *y = t;
}

static void quicksort(int *v, long lo, long hi)
{
    while (lo < hi) {
        int pivot = v[(lo + hi) / 2];
        long i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot) i++;
            while (v[j] > pivot) j--;
            if (i <= j) swap(&v[i++], &v[j--]);
        }
        if (j - lo < hi - i) {
            quicksort(v, lo, j);
            lo = i;
        } else {
            quicksort(v, i, hi);
            hi = j;
        }
    }
}

struct stats {
    double sum, min, max;
    long count;
};

static struct stats summarise(const double m[N][N])
{
    struct stats s = {0.0, m[0][0], m[0][0], 0};
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < N; j++) {
            double x = m[i][j];
            s.sum += x;
            s.min = x < s.min ? x : s.min;
            s.max = x > s.max ? x : s.max;
            s.count++;
        }
    return s;
}

int main(void)
{
    static int v[16384];
    unsigned seed = 7;
    fill(a, 1);
    fill(b, 2);
    matmul_blocked();
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        seed = seed * 1664525u + 1013904223u;
        v[i] = (int)(seed >> 8);
    }
    quicksort(v, 0, (long)(sizeof v / sizeof v[0]) - 1);
    struct stats s = summarise(c);
    return s.count == N * N && v[0] <= v[1] ? 0 : 1;
}
