/* Parent and forked child pass one byte back and forth three times, over
 * two pipes or, given the argument `fifo`, over two FIFOs made in the
 * working directory and opened for reading and writing (as lmbench's
 * lat_fifo); the parent then waits for the child. The tests that capture
 * it (tests/valgrind.rs) check the merged trace's system calls and
 * hand-overs. Only raw system calls after fork, so each process's sequence
 * is fixed. */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int fifo(const char *name) {
    unlink(name);
    if (mkfifo(name, 0600) != 0) return -1;
    return open(name, O_RDWR);
}

int main(int argc, char **argv) {
    int down[2], up[2];
    char c = 'x';
    /* Its parent is the capturing process, another pid each run: the
     * merge must not let that into the trace. */
    (void)getppid();
    if (argc > 1 && strcmp(argv[1], "fifo") == 0) {
        down[0] = down[1] = fifo("fifo.down");
        up[0] = up[1] = fifo("fifo.up");
        if (down[0] < 0 || up[0] < 0) return 1;
    } else if (pipe(down) != 0 || pipe(up) != 0) {
        return 1;
    }
    pid_t child = fork();
    if (child < 0) return 1;
    if (child == 0) {
        for (int i = 0; i < 3; i++) {
            if (read(down[0], &c, 1) != 1 || write(up[1], &c, 1) != 1) _exit(2);
        }
        _exit(0);
    }
    for (int i = 0; i < 3; i++) {
        if (write(down[1], &c, 1) != 1 || read(up[0], &c, 1) != 1) return 3;
    }
    int status;
    if (waitpid(child, &status, 0) != child || status != 0) return 4;
    /* A second run in the same directory must find none (its unlink's
     * result is in the trace). */
    unlink("fifo.down");
    unlink("fifo.up");
    return 0;
}
