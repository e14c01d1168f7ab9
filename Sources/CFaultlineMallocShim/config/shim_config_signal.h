// The shim's signal options (FAULTLINE_LEAK_SIGNAL, FAULTLINE_LEAK_STOP_SIGNAL).
#ifndef SHIM_CONFIG_SIGNAL_H
#define SHIM_CONFIG_SIGNAL_H

#include "fl_options.h"

/// Reads option `id`'s variable as a signal (a number, SIGUSR2, USR2, SIGRTMIN+11…)
/// into `*field`; unset or empty leaves it. 0 is taken only when `allow_off`.
/// A value that is no signal, or a fault signal (SIGSEGV, SIGBUS, SIGILL,
/// SIGFPE, SIGTRAP, SIGSYS, SIGABRT) or SIGKILL/SIGSTOP, gets one line on
/// stderr naming the value as written and `*field` is left (the default).
/// No allocation: runs inside malloc.
void shim_env_signal(fl_option_id id, int *field, int allow_off);

#endif
