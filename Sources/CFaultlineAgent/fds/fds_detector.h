// The fds detector: descriptors the program opens and never closes
// (`fd_leak` at exit, grouped by opening stack) and a process nearing its
// RLIMIT_NOFILE (`fd_pressure`). docs/resources.md.
#ifndef FL_FDS_DETECTOR_H
#define FL_FDS_DETECTOR_H

/// Maps the table, the stack store and the report buffer and starts
/// following opens. Returns 0, or -1 with errno. Install time.
int fl_fds_install(void);
/// Stops following (nothing is reported at exit then).
void fl_fds_uninstall(void);

#endif
