/* A small but real C translation unit for capture: the benchmark traces gcc
 * compiling it (a compiler run, like the GCC trace of Jacob & Mudge). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node { struct node *left, *right; int key; char name[24]; };

static struct node *insert(struct node *t, int key, const char *name) {
    if (!t) {
        t = calloc(1, sizeof *t);
        t->key = key;
        strncpy(t->name, name, sizeof t->name - 1);
        return t;
    }
    if (key < t->key) t->left = insert(t->left, key, name);
    else if (key > t->key) t->right = insert(t->right, key, name);
    return t;
}

static int depth(const struct node *t) {
    if (!t) return 0;
    int l = depth(t->left), r = depth(t->right);
    return 1 + (l > r ? l : r);
}

static void matmul(int n, const double *a, const double *b, double *c) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int k = 0; k < n; k++) s += a[i * n + k] * b[k * n + j];
            c[i * n + j] = s;
        }
}

static unsigned hash(const char *s) {
    unsigned h = 2166136261u;
    while (*s) { h ^= (unsigned char)*s++; h *= 16777619u; }
    return h;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 64;
    double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n), *c = malloc(sizeof(double) * n * n);
    for (int i = 0; i < n * n; i++) { a[i] = i % 7; b[i] = i % 5; }
    matmul(n, a, b, c);
    struct node *t = NULL;
    char buf[32];
    for (int i = 0; i < 10000; i++) {
        snprintf(buf, sizeof buf, "k%d", (i * 7919) % 10007);
        t = insert(t, (int)(hash(buf) % 100003), buf);
    }
    printf("%f %d\n", c[n * n - 1], depth(t));
    return 0;
}
