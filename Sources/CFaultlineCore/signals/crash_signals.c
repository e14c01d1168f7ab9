#include "crash_signals.h"

const int fl_crash_signals[FL_CRASH_SIGNAL_COUNT] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS};

void fl_crash_signals_del(sigset_t *set) {
    for (int i = 0; i < FL_CRASH_SIGNAL_COUNT; i++) sigdelset(set, fl_crash_signals[i]);
}
