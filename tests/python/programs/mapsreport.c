/* A real two-process workload for the OS replay of system-call markers
 * (issue 25, must-show 3; tests/python/test_replay_real.py).
 *
 * One file mapped three times (shared read-write, shared read-only, private
 * at an offset) and one shared anonymous page, then a fork: the child writes
 * through the mappings, changes one page's protection and unmaps one file
 * mapping. Each process ends by printing the /proc/self/maps lines of the
 * regions it created (by address range), so the test compares the replay
 * with the kernel's own record of the same run, at the addresses valgrind
 * gave this run.
 *
 * The report is built with raw open/read/write into static buffers: stdio
 * or malloc would add mappings (and markers) of their own. */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096

struct region {
    unsigned long start, end;
};

static char maps[1 << 20];
static char out[1 << 14];

static unsigned long hex(const char **p) {
    unsigned long v = 0;
    for (;; (*p)++) {
        char c = **p;
        if (c >= '0' && c <= '9') v = v * 16 + (unsigned long)(c - '0');
        else if (c >= 'a' && c <= 'f') v = v * 16 + (unsigned long)(c - 'a' + 10);
        else return v;
    }
}

static long put_hex(long o, unsigned long v) {
    char digits[16];
    int n = 0;
    do digits[n++] = "0123456789abcdef"[v % 16]; while ((v /= 16) != 0);
    while (n > 0) out[o++] = digits[--n];
    return o;
}

/* Writes "ROLE regions A B C S" (the regions' starts), then "ROLE START-END
 * PERMS OFFSET DEV INODE" for each maps line overlapping one of the regions;
 * exits 3 if the maps could not be read whole. */
static void report(const char *role, const struct region *r, int n) {
    int fd = open("/proc/self/maps", O_RDONLY);
    long len = 0, got;
    if (fd < 0) _exit(3);
    while ((got = read(fd, maps + len, sizeof maps - 1 - len)) > 0) len += got;
    close(fd);
    if (got < 0 || len >= (long)sizeof maps - 1) _exit(3);
    maps[len] = 0;
    long o = 0;
    /* where the regions are, by name, so the test knows which is which */
    for (const char *c = role; *c; c++) out[o++] = *c;
    for (const char *c = " regions"; *c; c++) out[o++] = *c;
    for (int i = 0; i < n; i++) {
        out[o++] = ' ';
        o = put_hex(o, r[i].start);
    }
    out[o++] = '\n';
    for (const char *line = maps; *line;) {
        const char *p = line;
        unsigned long start = hex(&p);
        p++;
        unsigned long end = hex(&p);
        const char *next = p;
        while (*next && *next != '\n') next++;
        for (int i = 0; i < n; i++) {
            if (start < r[i].end && r[i].start < end) {
                for (const char *c = role; *c; c++) out[o++] = *c;
                out[o++] = ' ';
                /* the line up to the path: "START-END PERMS OFFSET DEV INODE" */
                int fields = 0;
                for (const char *c = line; c < next && fields < 5; c++) {
                    if (*c == ' ') fields++;
                    if (fields < 5) out[o++] = *c;
                }
                out[o++] = '\n';
                break;
            }
        }
        line = *next ? next + 1 : next;
    }
    if (write(1, out, (size_t)o) != o) _exit(3);
}

int main(void) {
    int fd = open("data.bin", O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || ftruncate(fd, 4 * PAGE) != 0) return 1;
    char *a = mmap(0, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    char *b = mmap(0, 2 * PAGE, PROT_READ, MAP_SHARED, fd, 0);
    char *c = mmap(0, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 2 * PAGE);
    char *s = mmap(0, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (a == MAP_FAILED || b == MAP_FAILED || c == MAP_FAILED || s == MAP_FAILED) return 1;
    struct region mine[] = {
        {(unsigned long)a, (unsigned long)a + 2 * PAGE},
        {(unsigned long)b, (unsigned long)b + 2 * PAGE},
        {(unsigned long)c, (unsigned long)c + PAGE},
        {(unsigned long)s, (unsigned long)s + PAGE},
    };
    a[100] = 7;
    c[0] = b[100];
    pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
        s[0] = c[0];
        a[PAGE + 200] = 9;
        if (mprotect(a + PAGE, PAGE, PROT_READ) != 0) _exit(1);
        if (munmap(b, 2 * PAGE) != 0) _exit(1);
        report("child", mine, 4);
        _exit(0);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid || status != 0) return 1;
    /* the child's stores, seen through the shared mappings */
    if (s[0] != 7 || b[PAGE + 200] != 9) return 2;
    report("parent", mine, 4);
    return 0;
}
