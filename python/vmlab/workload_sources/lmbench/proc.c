/* Process creation, as lmbench's lat_proc: fork (the child exits at once),
 * exec (the child runs /bin/true) and shell (the child runs /bin/sh -c
 * /bin/true, which runs it in turn).
 *
 *   proc fork|exec|shell [warm-up times] [times]
 *
 * The parent marks the measured stretch with two getppid() calls: the
 * creations after the warm-up ones, each to its child's end (waitpid).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void mark(void) { (void)getppid(); }

int main(int argc, char **argv) {
	const char *mode = argc > 1 ? argv[1] : "fork";
	long warm = argc > 2 ? atol(argv[2]) : 1;
	long n = argc > 3 ? atol(argv[3]) : 10;
	if (strcmp(mode, "fork") && strcmp(mode, "exec") && strcmp(mode, "shell")) {
		fprintf(stderr, "proc: unknown mode %s (fork, exec, shell)\n", mode);
		return 2;
	}
	for (long i = 0; i < warm + n; i++) {
		if (i == warm) mark();
		pid_t pid = fork();
		if (pid < 0) return perror("fork"), 1;
		if (pid == 0) {
			if (!strcmp(mode, "exec")) execl("/bin/true", "true", (char *)0);
			if (!strcmp(mode, "shell")) execl("/bin/sh", "sh", "-c", "/bin/true", (char *)0);
			_exit(0);
		}
		waitpid(pid, NULL, 0);
	}
	mark();
	return 0;
}
