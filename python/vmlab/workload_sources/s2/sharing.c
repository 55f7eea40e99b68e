/* A real multi-process workload with sharing for study S2's consistency
 * policies (issue 25; python/vmlab/studies/s2_real.py captures it with
 * every process traced and its system calls as markers).
 *
 * What it forces, each a case the policies exist for (seed 000, section 5):
 *   - one file mapped twice by one process (read-write and read-only), and
 *     again by each child through its own open, at addresses of its own;
 *   - a System V segment attached by every process, a shared anonymous
 *     mapping inherited across fork;
 *   - private data written before the fork and by both sides after it
 *     (copy-on-write);
 *   - the children's mappings at other cache colours than the parent's
 *     (see elsewhere()).
 * The parent and the children take turns through pipes, so that a store
 * through one alias is followed by loads through another in another process.
 * Every value read is checked; the exit status is 0 only if all were right,
 * so the capture is of a run that really shared its data.
 *
 * Deterministic: no time, no pids, no randomness; the file is made here. */
#include <fcntl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096
#define PAGES 4
#define WORDS (PAGES * PAGE / (long)sizeof(long))
#define CHILDREN 2
#define ROUNDS 6
#define STRIDE 37 /* words between the ones touched in a round: every line of the pages in turn */

static long cow[WORDS];

static void fail(int code) { _exit(code); }

static void token(int fd_in, int fd_out) {
    char t = 0;
    if (fd_out >= 0 && write(fd_out, &t, 1) != 1) fail(10);
    if (fd_in >= 0 && read(fd_in, &t, 1) != 1) fail(11);
}

/* Where child c attaches what the parent has at `at`: 4 MB up and an odd
 * number of pages more, so another colour of the 834's 64 KB alias span and
 * of the R4000's bit 12, as ASLR would place it (valgrind places every
 * process's mappings alike, so the child asks for the address). */
static void *elsewhere(void *at, int c, int pages) {
    return (char *)at + (4 << 20) + (unsigned long)(2 * c + 1) * pages * PAGE;
}

static int child(int c, int shmid, long *anon, long *parent_seg, long *parent_rw, int in, int out) {
    long *seg = shmat(shmid, elsewhere(parent_seg, c, 3), 0);
    int fd = open("shared.dat", O_RDWR);
    long *file = mmap(elsewhere(parent_rw, c, 5), PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (seg == (void *)-1 || fd < 0 || file == MAP_FAILED) fail(21);
    if (file != elsewhere(parent_rw, c, 5)) fail(20); /* the hint not taken: no colour change forced */
    close(fd);
    for (int r = 0; r < ROUNDS; r++) {
        token(in, -1);
        for (long i = r; i < WORDS; i += STRIDE) {
            /* what the parent stored this round, through other aliases */
            if (seg[i] != r * 1000 + i || file[i] != r * 1000 + i || anon[i] != r * 1000 + i) fail(22);
            /* pre-fork private data: the parent's values, until this
             * child's own store copies the page */
            if (cow[i] != i) fail(23);
            cow[i] = -1 - c;
            file[i] = -(r * 1000 + i) - c;
            seg[i] = -(r * 1000 + i) - c;
        }
        token(-1, out);
    }
    if (munmap(file, PAGES * PAGE) != 0 || shmdt(seg) != 0) fail(24);
    return 0;
}

int main(void) {
    int fd = open("shared.dat", O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || ftruncate(fd, PAGES * PAGE) != 0) fail(1);
    long *rw = mmap(0, PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    long *ro = mmap(0, PAGES * PAGE, PROT_READ, MAP_SHARED, fd, 0); /* the same file again */
    int shmid = shmget(IPC_PRIVATE, PAGES * PAGE, IPC_CREAT | 0600);
    long *seg = shmid < 0 ? (void *)-1 : shmat(shmid, 0, 0);
    long *anon = mmap(0, PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (rw == MAP_FAILED || ro == MAP_FAILED || seg == (void *)-1 || anon == MAP_FAILED) fail(2);
    close(fd);
    for (long i = 0; i < WORDS; i++) cow[i] = i;

    int to[CHILDREN][2], from[CHILDREN][2];
    pid_t pids[CHILDREN];
    for (int c = 0; c < CHILDREN; c++) {
        if (pipe(to[c]) != 0 || pipe(from[c]) != 0) fail(3);
        pids[c] = fork();
        if (pids[c] < 0) fail(4);
        if (pids[c] == 0) _exit(child(c, shmid, anon, seg, rw, to[c][0], from[c][1]));
    }
    for (int r = 0; r < ROUNDS; r++) {
        for (int c = 0; c < CHILDREN; c++) {
            for (long i = r; i < WORDS; i += STRIDE) {
                rw[i] = r * 1000 + i;
                seg[i] = r * 1000 + i;
                anon[i] = r * 1000 + i;
                cow[i] = -1; /* the parent's own copy */
            }
            token(-1, to[c][1]);
            token(from[c][0], -1);
            /* the child's stores, read through the read-only alias */
            for (long i = r; i < WORDS; i += STRIDE)
                if (ro[i] != -(r * 1000 + i) - c || seg[i] != -(r * 1000 + i) - c || cow[i] != -1) fail(5);
        }
    }
    for (int c = 0; c < CHILDREN; c++) { /* in order: which child exits first is a race */
        int status;
        if (waitpid(pids[c], &status, 0) != pids[c] || !WIFEXITED(status) || WEXITSTATUS(status) != 0) fail(6);
    }
    if (shmdt(seg) != 0 || shmctl(shmid, IPC_RMID, 0) != 0 || munmap(ro, PAGES * PAGE) != 0) fail(7);
    if (unlink("shared.dat") != 0) fail(8);
    return 0;
}
