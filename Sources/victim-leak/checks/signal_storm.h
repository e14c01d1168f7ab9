// victim-leak signal-storm: on-demand leak checks while threads allocate.
#ifndef VICTIM_SIGNAL_STORM_H
#define VICTIM_SIGNAL_STORM_H

/// `threads` threads malloc/calloc/realloc/free in a tight loop while the
/// main thread sends FAULTLINE_LEAK_SIGNAL (given as a number) to them in
/// `bursts` bursts of 200 (tgkill: they are interrupted inside the shim,
/// holding its locks); after each burst it waits up to 10 s for a new leak
/// report in FAULTLINE_REPORT_DIR, and says whether the signals folded into
/// fewer reports than a quarter of them. Returns the exit status (0: every
/// burst was answered and the workers finished).
int victim_signal_storm(int threads, int bursts);

#endif
