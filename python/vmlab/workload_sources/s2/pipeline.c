/* `ls files/NAME... | sort | uniq -c`, run as a shell would run it, for study S2's
 * consistency policies (issue 25; python/vmlab/studies/s2_real.py): three
 * real programs of the machine's coreutils, connected by pipes, each
 * loading the C library (ls after libselinux and libpcre2, so at another
 * address). A launcher instead of `sh -c`: a shell reads its parent's pid
 * at start ($PPID) and formats it, so its trace would change with the pid
 * of whatever started the capture. The children are waited for in order,
 * so that no exit race reaches the merged trace.
 *
 * Nothing of the host's state reaches the trace. sort is given its buffer
 * size (-S): otherwise it sizes the buffer from the host's free memory
 * (sysinfo), and whether that was above an eighth of the total took
 * another branch (a capture 6 references longer when the page cache had
 * less to give). The pipes need nothing: ls and sort each write their
 * whole output in one write(), under PIPE_BUF, so however the host
 * schedules them each reader's first read() gets all of it and its second
 * the end of file (tests/python/test_s2_real.py checks this). */
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    /* ls's operands are the launcher's own: every file of `files`, named
     * as a shell's glob names them (sorted, C locale), so ls never reads
     * the directory. Listing `files` itself took getdents' order, which is
     * the filesystem's (ext4 orders a directory by a hash of the names
     * seeded at mkfs), and ls's sort did more or less work on it: the same
     * versions gave another trace on another machine. */
    if (argc < 2) return 4;
    argv[0] = "/bin/ls";
    char *const *ls = argv;
    /* 8320K: the buffer sort chose itself on a host with memory to
     * spare (one mmap of 8,523,776 bytes), so the run is the same. */
    char *const sort[] = {"/usr/bin/sort", "-S", "8320K", 0};
    char *const uniq[] = {"/usr/bin/uniq", "-c", 0};
    char *const *cmds[] = {ls, sort, uniq};
    pid_t pids[3];
    int in = -1;
    for (int i = 0; i < 3; i++) {
        int p[2] = {-1, -1};
        if (i < 2 && pipe(p) != 0) return 1;
        pids[i] = fork();
        if (pids[i] < 0) return 2;
        if (pids[i] == 0) {
            if (in >= 0 && (dup2(in, 0) < 0 || close(in) != 0)) _exit(125);
            if (i < 2 && (dup2(p[1], 1) < 0 || close(p[1]) != 0 || close(p[0]) != 0)) _exit(125);
            execv(cmds[i][0], cmds[i]);
            _exit(127);
        }
        if (in >= 0) close(in);
        if (i < 2) {
            close(p[1]);
            in = p[0];
        }
    }
    for (int i = 0; i < 3; i++) {
        int status;
        if (waitpid(pids[i], &status, 0) != pids[i] || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return 3;
    }
    return 0;
}
