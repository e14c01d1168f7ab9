// Fd 2 stays the terminal under `faultline exec` (colours, progress bars
// and prompts depend on it), and what the program wrote there is still in
// a crash report's stderr_tail.
#include "invisible_cases.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) static void invisible_crash_after_isatty(void) {
    volatile int *p = 0;
    *p = 1;
}

int invisible_isatty(int argc, char **argv) {
    const char *t2 = ttyname(2), *t0 = ttyname(0);
    printf("isatty: fd0=%d fd1=%d fd2=%d fileno(stderr)=%d(%d) same-tty=%d\n", isatty(0), isatty(1), isatty(2),
           fileno(stderr), isatty(fileno(stderr)), t0 && t2 && strcmp(t0, t2) == 0);
    fflush(stdout);
    fprintf(stderr, "isatty: through stdio\n");
    if (write(2, "isatty: through write\n", 22) != 22) return 3;
    invisible_crash_after_isatty();
    return 0;
}
