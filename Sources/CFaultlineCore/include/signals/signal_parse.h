// Signals given by name or number in FAULTLINE_* options.
#ifndef FL_SIGNAL_PARSE_H
#define FL_SIGNAL_PARSE_H

/// The signal `text` names, or -1: a number ("12"), a name with or without
/// "SIG" in any case ("SIGUSR2", "usr2"), or a real-time signal relative to
/// either end ("SIGRTMIN+11", "RTMAX-2", "SIGRTMIN"). A number or real-time
/// signal outside 1...SIGRTMAX is -1; "0" is 0. No allocation, no stdio:
/// the malloc shim reads its options inside malloc.
int fl_parse_signal(const char *text);

#endif
