/* A longer real multi-process workload for study S2's consistency policies
 * (issue 25; python/vmlab/studies/s2_real.py captures it with every process
 * traced and its system calls as markers): long-lived processes doing real
 * work over shared mappings, with little set-up and teardown for their
 * length, the workload "without heavy remapping" of seed 000 section 5's
 * Sun-3 flushing figure.
 *
 *   - the parent maps the records file (records.txt, made by the capturing
 *     side) shared, read-only, and a shared anonymous result area;
 *   - WORKERS forked workers live through ROUNDS rounds: each parses its
 *     share of the records from the shared file mapping into its heap
 *     (strtol, memcpy), sorts them with the C library's qsort by a
 *     different key each round, and writes a digest of the order into its
 *     slot of the result area;
 *   - one more child execs the machine's gzip (argv[1]) on the records file:
 *     a real program of its own, with the C library at its own address;
 *   - the parent then sorts each worker's share again itself and checks the
 *     worker's digests against its own.
 * Each forked process, last thing before it exits, copies its own
 * /proc/self/maps into maps-ROLE.txt: the kernel's record of the same run,
 * which the replay's mappings are checked against (issue 25, must-show 3).
 * That copy is made with open/read/write into static buffers, so it adds
 * no mapping of its own.
 *
 * Deterministic: no time, no pids in the data, no randomness; workers write
 * disjoint slots and the parent reads them after waiting for each. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define WORKERS 2
#define ROUNDS 3
#define KEY 24

struct record {
    char key[KEY];
    long value;
    long line;
};

struct slot {
    long records;
    unsigned long digest[ROUNDS];
};

static char maps[1 << 20];

static void fail(int code) { _exit(code); }

static void report_maps(const char *role) {
    char name[64] = "maps-";
    strcat(name, role);
    strcat(name, ".txt");
    int out = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int in = open("/proc/self/maps", O_RDONLY);
    long len = 0, got;
    if (out < 0 || in < 0) fail(40);
    while ((got = read(in, maps + len, sizeof maps - len)) > 0) len += got;
    if (got < 0 || len >= (long)sizeof maps) fail(41);
    if (write(out, maps, (size_t)len) != len || close(in) != 0 || close(out) != 0) fail(42);
}

static int by_key(const void *a, const void *b) {
    return strcmp(((const struct record *)a)->key, ((const struct record *)b)->key);
}

static int by_value(const void *a, const void *b) {
    long x = ((const struct record *)a)->value, y = ((const struct record *)b)->value;
    return x < y ? -1 : x > y ? 1 : by_key(a, b);
}

static int by_tail(const void *a, const void *b) {
    const struct record *x = a, *y = b;
    size_t i = strlen(x->key), j = strlen(y->key);
    while (i > 0 && j > 0) {
        if (x->key[--i] != y->key[--j]) return (unsigned char)x->key[i] - (unsigned char)y->key[j];
    }
    return i != j ? (int)i - (int)j : by_value(a, b);
}

static int (*const order[ROUNDS])(const void *, const void *) = {by_key, by_value, by_tail};

/* Lines [from, to) of the records ("KEY VALUE\n"), parsed into `out`. */
static long parse(const char *text, long size, long from, long to, struct record *out) {
    long line = 0, n = 0;
    for (const char *p = text, *end = text + size; p < end && line < to; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (nl == NULL) nl = end;
        if (line >= from) {
            const char *sp = memchr(p, ' ', (size_t)(nl - p));
            if (sp == NULL || sp - p >= KEY) fail(30);
            memset(out[n].key, 0, KEY);
            memcpy(out[n].key, p, (size_t)(sp - p));
            out[n].value = strtol(sp + 1, NULL, 10);
            out[n].line = line;
            n++;
        }
        p = nl + 1;
    }
    return n;
}

static unsigned long digest(const struct record *r, long n) {
    unsigned long h = 14695981039346656037UL;
    for (long i = 0; i < n; i++) h = (h ^ (unsigned long)r[i].line) * 1099511628211UL;
    return h;
}

static void sort_rounds(const char *text, long size, long from, long to, struct slot *slot) {
    struct record *r = malloc((size_t)(to - from) * sizeof *r);
    if (r == NULL) fail(31);
    for (int k = 0; k < ROUNDS; k++) {
        /* parsed again each round: the shared mapping read again */
        slot->records = parse(text, size, from, to, r);
        qsort(r, (size_t)slot->records, sizeof *r, order[k]);
        slot->digest[k] = digest(r, slot->records);
    }
    free(r);
}

int main(int argc, char **argv) {
    if (argc != 2) fail(1);
    int fd = open("records.txt", O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) fail(2);
    const char *text = mmap(0, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    struct slot *slots = mmap(0, WORKERS * sizeof(struct slot), PROT_READ | PROT_WRITE,
                              MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (text == MAP_FAILED || slots == MAP_FAILED) fail(3);
    close(fd);
    long lines = 0;
    for (long i = 0; i < st.st_size; i++) lines += text[i] == '\n';

    pid_t gzip = fork();
    if (gzip < 0) fail(4);
    if (gzip == 0) {
        int in = open("records.txt", O_RDONLY), out = open("records.txt.gz", O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (in < 0 || out < 0 || dup2(in, 0) != 0 || dup2(out, 1) != 1) fail(5);
        close(in);
        close(out);
        execl(argv[1], "gzip", "-1", "-c", (char *)NULL);
        fail(6);
    }
    pid_t pids[WORKERS];
    for (int w = 0; w < WORKERS; w++) {
        pids[w] = fork();
        if (pids[w] < 0) fail(7);
        if (pids[w] == 0) {
            sort_rounds(text, st.st_size, lines * w / WORKERS, lines * (w + 1) / WORKERS, &slots[w]);
            char role[] = "worker0";
            role[6] = (char)('1' + w);
            report_maps(role);
            _exit(0);
        }
    }
    int status;
    if (waitpid(gzip, &status, 0) != gzip || !WIFEXITED(status) || WEXITSTATUS(status) != 0) fail(8);
    long seen = 0;
    for (int w = 0; w < WORKERS; w++) { /* in order: which worker ends first is a race */
        if (waitpid(pids[w], &status, 0) != pids[w] || !WIFEXITED(status) || WEXITSTATUS(status) != 0) fail(9);
        seen += slots[w].records;
    }
    if (seen != lines) fail(10);
    for (int w = 0; w < WORKERS; w++) {
        struct slot again;
        sort_rounds(text, st.st_size, lines * w / WORKERS, lines * (w + 1) / WORKERS, &again);
        for (int k = 0; k < ROUNDS; k++)
            if (again.digest[k] != slots[w].digest[k]) fail(11);
    }
    report_maps("parent");
    return 0;
}
