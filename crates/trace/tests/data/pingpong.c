/* Parent and forked child pass one byte back and forth over two pipes,
 * three times; the parent then waits for the child. The test that captures
 * it (tests/valgrind.rs) checks the merged trace's system calls and
 * hand-overs. Only raw system calls after fork, so each process's sequence
 * is fixed. */
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
    int down[2], up[2];
    char c = 'x';
    if (pipe(down) != 0 || pipe(up) != 0) return 1;
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
    return 0;
}
