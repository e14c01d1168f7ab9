// Names of signals and of their si_code values, for reports.
#ifndef FL_SIGNAL_NAMES_H
#define FL_SIGNAL_NAMES_H

/// "SIGSEGV" for 11, "SIG?" when unknown.
const char *fl_signal_name(int sig);
/// "SEGV_MAPERR" for (SIGSEGV, 1), "SI_USER" for 0, "UNKNOWN" otherwise.
const char *fl_signal_code_name(int sig, int code);

#endif
