#include "shim_config_signal.h"
#include "signal_parse.h"
#include "sigsafe.h"

#include <signal.h>
#include <stdlib.h>

// "faultline: NAME=VALUE WHAT", one line, without stdio.
static void warn(const char *name, const char *value, const char *what) {
    char line[512];
    size_t n = fl_strlcpy(line, "faultline: ", sizeof line);
    n += fl_strlcpy(line + n, name, sizeof line - n);
    n += fl_strlcpy(line + n, "=", sizeof line - n);
    n += fl_strlcpy(line + n, value, sizeof line - n);
    n += fl_strlcpy(line + n, " ", sizeof line - n);
    n += fl_strlcpy(line + n, what, sizeof line - n);
    if (n < sizeof line - 1) line[n++] = '\n';
    fl_write_all(2, line, n);
}

// A signal the kernel raises for a fault (the handler returning would run
// the faulting instruction again, forever) or one that cannot be caught
// cannot ask for a leak check or stop threads.
static int refused(int s) {
    return s == SIGSEGV || s == SIGBUS || s == SIGILL || s == SIGFPE || s == SIGTRAP || s == SIGSYS || s == SIGABRT ||
           s == SIGKILL || s == SIGSTOP;
}

void shim_env_signal(const char *name, int *field, int allow_off) {
    const char *v = getenv(name);
    if (!v || !*v) return;
    int s = fl_parse_signal(v);
    if (s < 0 || (s == 0 && !allow_off)) {
        warn(name, v, allow_off ? "is not a signal (a number up to SIGRTMAX, a name such as SIGUSR2 or USR2, or SIGRTMIN+N; 0 for none); using the default"
                                : "is not a signal (a number from 1 to SIGRTMAX, a name such as SIGUSR2 or USR2, or SIGRTMIN+N); using the default");
        return;
    }
    if (refused(s)) {
        warn(name, v, "is a fault signal or one that cannot be caught; choose another (e.g. SIGUSR2, 12, or SIGRTMIN+12); using the default");
        return;
    }
    *field = s;
}
