/* Process creation, as lmbench's lat_proc: fork (the child exits at once),
 * exec (the child runs a small program) and shell (the child runs
 * /bin/sh -c, which runs the small program).
 *
 *   proc fork|exec|shell [times]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
	const char *mode = argc > 1 ? argv[1] : "fork";
	long n = argc > 2 ? atol(argv[2]) : 10;
	if (strcmp(mode, "fork") && strcmp(mode, "exec") && strcmp(mode, "shell")) {
		fprintf(stderr, "proc: unknown mode %s (fork, exec, shell)\n", mode);
		return 2;
	}
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0) return perror("fork"), 1;
		if (pid == 0) {
			if (!strcmp(mode, "exec")) execl("/bin/true", "true", (char *)0);
			if (!strcmp(mode, "shell")) execl("/bin/sh", "sh", "-c", "/bin/true", (char *)0);
			_exit(0);
		}
		waitpid(pid, NULL, 0);
	}
	return 0;
}
