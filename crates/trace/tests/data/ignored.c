/* Prints the numbers of the signals it starts with ignored, one a line:
 * what a traced program inherits from whoever started the capture. */
#include <signal.h>
#include <stdio.h>

int main(void) {
    for (int s = 1; s < 65; s++) {
        struct sigaction sa;
        if (sigaction(s, 0, &sa) == 0 && sa.sa_handler == SIG_IGN) printf("%d\n", s);
    }
    return 0;
}
