/* Pipe and unix-socket bandwidth, as lmbench's bw_pipe and bw_unix: the
 * parent writes `total` bytes in 64 KB writes, the child reads them. A pipe
 * holds one page (Linux 2.4: PIPE_BUF = 4096), so the writer blocks every
 * 4 KB and the two processes switch per page; a unix stream socket queues
 * up to its send buffer (64 KB), so they switch per write.
 *
 *   bandwidth pipe|unix [megabytes]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHUNK (64 * 1024)

int main(int argc, char **argv) {
	const char *mode = argc > 1 ? argv[1] : "pipe";
	long total = (argc > 2 ? atol(argv[2]) : 1) << 20;
	int fd[2];
	if (!strcmp(mode, "pipe")) {
		if (pipe(fd)) return perror("pipe"), 1;
	} else if (!strcmp(mode, "unix")) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, fd)) return perror("socketpair"), 1;
	} else {
		fprintf(stderr, "bandwidth: unknown mode %s (pipe, unix)\n", mode);
		return 2;
	}
	static char buf[CHUNK];
	pid_t pid = fork();
	if (pid < 0) return perror("fork"), 1;
	if (pid == 0) {
		long got = 0;
		ssize_t n;
		while (got < total && (n = read(fd[0], buf, sizeof buf)) > 0) got += n;
		_exit(got == total ? 0 : 1);
	}
	memset(buf, 'x', sizeof buf);
	for (long sent = 0; sent < total; sent += CHUNK)
		if (write(fd[1], buf, CHUNK) != CHUNK) return perror("write"), 1;
	int status;
	waitpid(pid, &status, 0);
	return WEXITSTATUS(status);
}
