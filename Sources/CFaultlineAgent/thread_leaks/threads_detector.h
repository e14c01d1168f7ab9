// The threads detector: joinable threads that finished and were never
// joined or detached (`thread_leak` at exit) and thread-count growth
// (`thread_growth`). docs/resources.md.
#ifndef FL_THREADS_DETECTOR_H
#define FL_THREADS_DETECTOR_H

/// Maps the records and the report buffer and starts following
/// pthread_create. Returns 0, or -1 with errno. Install time.
int fl_threads_detector_install(void);
/// Stops following.
void fl_threads_detector_uninstall(void);

#endif
