#include "shim_config_signal.h"
#include "shim_config.h"
#include "signal_parse.h"
#include "sigsafe.h"

#include <signal.h>
#include <stdlib.h>

// A signal the kernel raises for a fault (the handler returning would run
// the faulting instruction again, forever) or one that cannot be caught
// cannot ask for a leak check or stop threads.
static int refused(int s) {
    return s == SIGSEGV || s == SIGBUS || s == SIGILL || s == SIGFPE || s == SIGTRAP || s == SIGSYS || s == SIGABRT ||
           s == SIGKILL || s == SIGSTOP;
}

void shim_env_signal(fl_option_id id, int *field, int allow_off) {
    const char *name = fl_option_at(id)->name;
    const char *v = fl_option_value(id);
    if (!v || !*v) return;
    int s = fl_parse_signal(v);
    if (s < 0 || (s == 0 && !allow_off)) {
        shim_config_warn(name, v, allow_off ? "is not a signal (a number up to SIGRTMAX, a name such as SIGUSR2 or USR2, or SIGRTMIN+N; 0 for none); using the default"
                                : "is not a signal (a number from 1 to SIGRTMAX, a name such as SIGUSR2 or USR2, or SIGRTMIN+N); using the default");
        return;
    }
    if (refused(s)) {
        shim_config_warn(name, v, "is a fault signal or one that cannot be caught; choose another (e.g. SIGUSR2, 12, or SIGRTMIN+12); using the default");
        return;
    }
    *field = s;
}
