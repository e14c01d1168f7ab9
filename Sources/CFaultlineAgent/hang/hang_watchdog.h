// The hang watchdog: a thread that wakes every sampling interval, decides
// whether the watched thread is responsive (ping, heartbeat or inferred from
// /proc), samples its stack while it is not, and writes the hang,
// hang_recovered and deadlock reports. docs/hangs.md describes the rules.
#ifndef FL_HANG_WATCHDOG_H
#define FL_HANG_WATCHDOG_H

/// Reads the options, maps every buffer and starts the watchdog thread
/// (named "faultline-wdog", all signals but the sample signal blocked).
/// Call from faultline_install after the sample signal is set up. Not
/// async-signal-safe. Returns 0, or -1 with errno set.
int fl_hang_install(void);

/// Stops the watchdog (an episode under way ends with ended_by
/// "uninstall"), joins it and closes the fd it kept; a later
/// fl_hang_install starts a new one. Not async-signal-safe; not while a
/// solo call (solo_call.h) is under way.
void fl_hang_uninstall(void);

/// 1 while the watchdog runs in this process.
int fl_hang_running(void);

#include <stdint.h>
/// When the last hang or deadlock report was written (CLOCK_MONOTONIC ns),
/// 0 before any: the cpu detector does not report that thread again.
uint64_t fl_hang_last_report_ns(void);

#endif
