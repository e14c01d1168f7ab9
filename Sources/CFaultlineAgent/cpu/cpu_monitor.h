// The cpu detector: a thread (faultline-cpu) that reads each thread's CPU
// time every FAULTLINE_CPU_INTERVAL_MS (a per-thread CPU clock: one system
// call per thread), follows threads above FAULTLINE_CPU_THRESHOLD percent
// of a core, samples their stacks every FAULTLINE_CPU_SAMPLE_MS, and writes
// one `cpu_hog` report per episode once one has stayed above the threshold
// for FAULTLINE_CPU_WINDOW_MS. Only in a program that has become ready
// (launch_clock.h: an event loop seen, a heartbeat or ping, or
// faultline_ready): a batch program computes on purpose. A main thread the
// hang detector reported meanwhile is not reported again. docs/resources.md.
#ifndef FL_CPU_MONITOR_H
#define FL_CPU_MONITOR_H

/// Reads the options and maps the buffers; starts the thread at once when
/// the hang detector is off (it then watches for main's event loop
/// itself), else when the program becomes ready. Returns 0 or -1 with
/// errno. Install time.
int fl_cpu_install(void);
/// Stops the monitor (its thread ends at its next tick).
void fl_cpu_uninstall(void);
/// The program is ready: starts the thread if it is not running.
void fl_cpu_program_ready(void);

#endif
