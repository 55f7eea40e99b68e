/* Hot-potato latency, as lmbench's lat_pipe, lat_fifo, lat_unix and
 * lat_fcntl measure it (seed 001's "lmbench hot potato latency"): two
 * processes hand one word back and forth; each hand-over blocks the
 * sender and wakes the receiver, so one round trip is two context switches.
 *
 *   hot_potato pipe|fifo|unix|fcntl [warm-up round trips] [round trips]
 *
 * Study S5 captures it with every process traced (vmlab.workloads,
 * LMBENCH). The parent marks the measured stretch with two getppid() calls
 * (the program makes no other): S5 measures from the first to the second.
 *   pipe, fifo, unix: parent write(1 word) -> read() blocks -> child's read
 *   returns -> child write(1 word) -> child read() blocks -> parent's read
 *   returns. The stretch is the round trips after the warm-up ones; the
 *   child then waits for one last word, so that it ends after the stretch.
 *   fcntl: lmbench's procA/procB on two locked files (F_SETLKW locks,
 *   F_SETLK unlocks). The stretch runs from just after the fork to the
 *   child's end: both loops, as lmbench counts them.
 * Every name and input is fixed (files in the working directory, no pid in
 * any string), so two captures are the same trace.
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

/* Where S5 starts and stops measuring (a system call nothing else makes). */
static void mark(void) { (void)getppid(); }

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

static void potato(int to_child, int from_child, int to_parent, int from_parent, long warm, long n) {
	pid_t pid = fork();
	if (pid < 0) die("fork");
	if (pid == 0) {
		for (long i = 0; i < warm + n; i++) xwrite(to_parent, xread(from_parent) + 1);
		/* Wait for the parent's last word: the child ends after the
		 * measured stretch, not inside it. */
		xread(from_parent);
		_exit(0);
	}
	int v = 0;
	for (long i = 0; i < warm + n; i++) {
		if (i == warm) mark();
		xwrite(to_child, v);
		v = xread(from_child);
	}
	mark();
	xwrite(to_child, -1);
	waitpid(pid, NULL, 0);
	printf("%d\n", v);
}

static int fifo(const char *name) {
	unlink(name);
	if (mkfifo(name, 0600)) die("mkfifo");
	int fd = open(name, O_RDWR);
	if (fd < 0) die("open");
	return fd;
}

int main(int argc, char **argv) {
	const char *mode = argc > 1 ? argv[1] : "pipe";
	long warm = argc > 2 ? atol(argv[2]) : 10;
	long n = argc > 3 ? atol(argv[3]) : 100;
	if (!strcmp(mode, "pipe")) {
		int down[2], up[2];
		if (pipe(down) || pipe(up)) die("pipe");
		potato(down[1], up[0], up[1], down[0], warm, n);
	} else if (!strcmp(mode, "fifo")) {
		int fa = fifo("fifo.a"), fb = fifo("fifo.b");
		potato(fa, fb, fb, fa, warm, n);
		unlink("fifo.a");
		unlink("fifo.b");
	} else if (!strcmp(mode, "unix")) {
		int sv[2];
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) die("socketpair");
		potato(sv[0], sv[0], sv[1], sv[1], warm, n);
	} else if (!strcmp(mode, "fcntl")) {
		int f1 = open("lock.1", O_CREAT | O_RDWR | O_TRUNC, 0600);
		int f2 = open("lock.2", O_CREAT | O_RDWR | O_TRUNC, 0600);
		if (f1 < 0 || f2 < 0) die("open");
		lock(f1, F_WRLCK);
		lock(f2, F_WRLCK);
		pid_t pid = fork();
		if (pid < 0) die("fork");
		if (pid == 0) {
			/* procB: never waits while holding a lock, so the two
			 * loops cannot deadlock whatever the scheduler does. */
			for (long i = 0; i < n; i++) {
				lock(f1, F_UNLCK);
				lock(f2, F_WRLCK);
				lock(f2, F_UNLCK);
				lock(f1, F_WRLCK);
			}
			_exit(0);
		}
		mark();
		for (long i = 0; i < n; i++) {
			lock(f1, F_WRLCK);
			lock(f2, F_UNLCK);
			lock(f2, F_WRLCK);
			lock(f1, F_UNLCK);
		}
		lock(f2, F_UNLCK);
		waitpid(pid, NULL, 0);
		mark();
		unlink("lock.1");
		unlink("lock.2");
	} else {
		fprintf(stderr, "hot_potato: unknown mode %s (pipe, fifo, unix, fcntl)\n", mode);
		return 2;
	}
	return 0;
}
