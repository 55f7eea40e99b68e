/* A token passed around a ring of processes through pipes, one hand-over
 * per hop (study S5's "more processes than domains": beyond 13 processes
 * fast address-space switching under Linux must recycle domains). With
 * `work`, every hop also runs a stretch of the C library (formatting,
 * parsing, sorting), so the processes share many pages of library text:
 * the "extreme sharing" case of seed 001's shared TLB entries.
 *
 *   ring processes [warm-up rounds] [rounds] [work]
 *
 * The parent is process 0; it forks the others, then each round writes the
 * token to the first and reads it back from the last. It marks the
 * measured rounds with two getppid() calls (S5 measures between them),
 * then passes one last token round, on which the others end: no process
 * ends inside the measured stretch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX 64

static void die(const char *what) {
	perror(what);
	exit(1);
}

static void mark(void) { (void)getppid(); }

static int cmp(const void *a, const void *b) {
	return *(const int *)a - *(const int *)b;
}

/* A stretch of library code that depends only on v. */
static int work(int v) {
	char buf[128];
	int a[32];
	for (int i = 0; i < 32; i++) a[i] = (v * 2654435761u + i * 40503u) % 1000;
	qsort(a, 32, sizeof a[0], cmp);
	snprintf(buf, sizeof buf, "%.9g %d %x %s", v / 7.0, a[0], a[31], "token");
	return (int)strtod(buf, NULL) + (int)strlen(buf);
}

static void xwrite(int fd, int v) {
	if (write(fd, &v, sizeof v) != sizeof v) die("write");
}

static int xread(int fd) {
	int v;
	if (read(fd, &v, sizeof v) != sizeof v) die("read");
	return v;
}

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 4;
	long warm = argc > 2 ? atol(argv[2]) : 2;
	long rounds = argc > 3 ? atol(argv[3]) : 10;
	int heavy = argc > 4 && !strcmp(argv[4], "work");
	if (n < 2 || n > MAX) {
		fprintf(stderr, "ring: 2 to %d processes\n", MAX);
		return 2;
	}
	int p[MAX][2];
	for (int i = 0; i < n; i++)
		if (pipe(p[i])) die("pipe");
	/* Process i reads pipe i - 1 and writes pipe i. */
	pid_t pids[MAX];
	for (int i = 1; i < n; i++) {
		pid_t pid = pids[i] = fork();
		if (pid < 0) die("fork");
		if (pid == 0) {
			for (long r = 0; r < warm + rounds; r++) {
				int v = xread(p[i - 1][0]);
				if (heavy) v += work(v) & 1;
				xwrite(p[i][1], v + 1);
			}
			xwrite(p[i][1], xread(p[i - 1][0]));
			_exit(0);
		}
	}
	int v = 0;
	for (long r = 0; r < warm + rounds; r++) {
		if (r == warm) mark();
		if (heavy) v += work(v) & 1;
		xwrite(p[0][1], v);
		v = xread(p[n - 1][0]);
	}
	mark();
	xwrite(p[0][1], -1);
	(void)xread(p[n - 1][0]);
	/* By pid, in order: wait(NULL) would return them in the order they
	 * happened to end, which the trace would record. */
	for (int i = 1; i < n; i++) waitpid(pids[i], NULL, 0);
	printf("%d\n", v);
	return 0;
}
