// victim-leak signal-alone: on-demand leak checks in a process that never
// has a second thread.
#ifndef VICTIM_SIGNAL_ALONE_H
#define VICTIM_SIGNAL_ALONE_H

/// One thread, with a 77-byte leak: a forked child sends the process
/// FAULTLINE_LEAK_SIGNAL (given as a number) `rounds` times while it mallocs
/// and frees in a loop, each time waiting up to 10 s for a new leak report
/// in FAULTLINE_REPORT_DIR; then once more while it waits in a read(2) the
/// kernel restarts after a handler (SA_RESTART), which ends only when the
/// child has seen that report and writes to the pipe. Prints how many were
/// answered and how many threads the process had. Returns 0 when every
/// signal was answered, 1 otherwise, 2 on a usage error.
int victim_signal_alone(int rounds);

#endif
