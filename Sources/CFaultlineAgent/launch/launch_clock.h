// Launch time: exec -> main -> ready, with the time before main split into
// loading (exec to the agent's constructor: the dynamic loader, the
// libraries loaded before the agent) and constructors (the agent's
// constructor to main: the other libraries' and the executable's). Ready
// is the first wait of an event loop as the hang detector sees it (or its
// heartbeat or ping mode starting), or the program's faultline_ready().
// Under `faultline exec` (FAULTLINE_LAUNCH_EXEC_NS) a `.launch-PID.json`
// record goes into the report directory for exec's summary; a launch over
// FAULTLINE_LAUNCH_THRESHOLD is a `launch` report. docs/resources.md.
#ifndef FL_LAUNCH_CLOCK_H
#define FL_LAUNCH_CLOCK_H

#include <stdint.h>

/// Reads the options and the exec time. Install time.
int fl_launch_install(void);
/// Stops recording (no record, no report).
void fl_launch_uninstall(void);
/// The agent's constructor has started (the first thing it does).
void fl_launch_note_constructor(void);
/// The program is ready, found so by `how` ("event_loop", "heartbeat",
/// "ping", "faultline_ready") at `now_ns` (CLOCK_MONOTONIC). The first call
/// counts; later ones cost one load. Not async-signal-safe (it may write a
/// record and start the cpu detector's thread).
void fl_launch_note_ready(uint64_t now_ns, const char *how);
/// When the program became ready (CLOCK_MONOTONIC ns), 0 until it has.
uint64_t fl_launch_ready_ns(void);

#endif
