/* Pipe and unix-socket bandwidth, as lmbench's bw_pipe and bw_unix: the
 * parent writes 64 KB chunks, the child reads them (a full chunk at a
 * time: MSG_WAITALL on the socket, a loop on the pipe, so the calls do not
 * depend on timing). A pipe holds 64 KB (Linux's default), a unix stream
 * socket splits a write into smaller buffers: where each really blocks is
 * what the capture's merge finds.
 *
 *   bandwidth pipe|unix [warm-up chunks] [chunks]
 *
 * The parent marks the measured stretch with two getppid() calls: from
 * after the warm-up chunks to after the child has read everything and
 * ended (its exit included, as lmbench's timing includes the last read).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHUNK (64 * 1024)

static void mark(void) { (void)getppid(); }

static char buf[CHUNK];

int main(int argc, char **argv) {
	const char *mode = argc > 1 ? argv[1] : "pipe";
	long warm = argc > 2 ? atol(argv[2]) : 1;
	long n = argc > 3 ? atol(argv[3]) : 16;
	int fd[2];
	int sock = !strcmp(mode, "unix");
	if (!strcmp(mode, "pipe")) {
		if (pipe(fd)) return perror("pipe"), 1;
	} else if (sock) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, fd)) return perror("socketpair"), 1;
	} else {
		fprintf(stderr, "bandwidth: unknown mode %s (pipe, unix)\n", mode);
		return 2;
	}
	pid_t pid = fork();
	if (pid < 0) return perror("fork"), 1;
	if (pid == 0) {
		for (long i = 0; i < warm + n; i++) {
			size_t got = 0;
			while (got < CHUNK) {
				ssize_t r = sock ? recv(fd[0], buf + got, CHUNK - got, MSG_WAITALL)
				                 : read(fd[0], buf + got, CHUNK - got);
				if (r <= 0) _exit(1);
				got += (size_t)r;
			}
		}
		_exit(0);
	}
	memset(buf, 'x', sizeof buf);
	for (long i = 0; i < warm + n; i++) {
		if (i == warm) mark();
		if (write(fd[1], buf, CHUNK) != CHUNK) return perror("write"), 1;
	}
	int status;
	waitpid(pid, &status, 0);
	mark();
	return WEXITSTATUS(status);
}
