/* Hot-potato latency, as lmbench's lat_pipe, lat_fifo, lat_unix and
 * lat_fcntl measure it (seed 001's "lmbench hot potato latency"): two
 * processes hand one word back and forth; each hand-over blocks the
 * sender and wakes the receiver, so one round trip is two context switches.
 *
 *   hot_potato pipe|fifo|unix|fcntl [round trips]
 *
 * Per round trip (what S5's program data in studies/s5.py follows):
 *   pipe, fifo, unix: parent write(1 word) -> read() blocks -> child's read
 *   returns -> child write(1 word) -> child read() blocks -> parent's read
 *   returns.
 *   fcntl: lmbench's procA/procB: parent F_SETLKW blocks on lock 1 until
 *   the child releases it, releases lock 2; the child does the mirror.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what) {
	perror(what);
	exit(1);
}

static void xwrite(int fd, int v) {
	if (write(fd, &v, sizeof v) != sizeof v) die("write");
}

static int xread(int fd) {
	int v;
	if (read(fd, &v, sizeof v) != sizeof v) die("read");
	return v;
}

static void lock(int fd, short type) {
	struct flock l;
	memset(&l, 0, sizeof l);
	l.l_type = type;
	l.l_whence = SEEK_SET;
	l.l_len = 1;
	if (fcntl(fd, type == F_UNLCK ? F_SETLK : F_SETLKW, &l) == -1) die("fcntl");
}

static void potato(int to_child, int from_child, int to_parent, int from_parent, long n) {
	pid_t pid = fork();
	if (pid < 0) die("fork");
	if (pid == 0) {
		for (long i = 0; i < n; i++) xwrite(to_parent, xread(from_parent) + 1);
		_exit(0);
	}
	int v = 0;
	for (long i = 0; i < n; i++) {
		xwrite(to_child, v);
		v = xread(from_child);
	}
	waitpid(pid, NULL, 0);
	printf("%d\n", v);
}

int main(int argc, char **argv) {
	const char *mode = argc > 1 ? argv[1] : "pipe";
	long n = argc > 2 ? atol(argv[2]) : 100;
	if (!strcmp(mode, "pipe")) {
		int down[2], up[2];
		if (pipe(down) || pipe(up)) die("pipe");
		potato(down[1], up[0], up[1], down[0], n);
	} else if (!strcmp(mode, "fifo")) {
		char a[64], b[64];
		snprintf(a, sizeof a, "/tmp/vmlab-fifo-%d.a", (int)getpid());
		snprintf(b, sizeof b, "/tmp/vmlab-fifo-%d.b", (int)getpid());
		if (mkfifo(a, 0600) || mkfifo(b, 0600)) die("mkfifo");
		int fa = open(a, O_RDWR), fb = open(b, O_RDWR);
		if (fa < 0 || fb < 0) die("open");
		unlink(a);
		unlink(b);
		potato(fa, fb, fb, fa, n);
	} else if (!strcmp(mode, "unix")) {
		int sv[2];
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) die("socketpair");
		potato(sv[0], sv[0], sv[1], sv[1], n);
	} else if (!strcmp(mode, "fcntl")) {
		char a[64], b[64];
		snprintf(a, sizeof a, "/tmp/vmlab-fcntl-%d.1", (int)getpid());
		snprintf(b, sizeof b, "/tmp/vmlab-fcntl-%d.2", (int)getpid());
		int f1 = open(a, O_CREAT | O_RDWR, 0600);
		int f2 = open(b, O_CREAT | O_RDWR, 0600);
		if (f1 < 0 || f2 < 0) die("open");
		unlink(a);
		unlink(b);
		lock(f1, F_WRLCK);
		lock(f2, F_WRLCK);
		pid_t pid = fork();
		if (pid < 0) die("fork");
		if (pid == 0) {
			for (long i = 0; i < n; i++) {
				lock(f1, F_UNLCK);
				lock(f2, F_WRLCK);
				lock(f2, F_UNLCK);
				lock(f1, F_WRLCK);
			}
			_exit(0);
		}
		for (long i = 0; i < n; i++) {
			lock(f1, F_WRLCK);
			lock(f2, F_UNLCK);
			lock(f2, F_WRLCK);
			lock(f1, F_UNLCK);
		}
		kill(pid, 9);
		waitpid(pid, NULL, 0);
	} else {
		fprintf(stderr, "hot_potato: unknown mode %s (pipe, fifo, unix, fcntl)\n", mode);
		return 2;
	}
	return 0;
}
