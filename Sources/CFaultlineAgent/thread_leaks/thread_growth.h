// Thread-count growth: when the program's followed threads that have not
// finished pass FAULTLINE_THREAD_GROWTH (default 256), and again at each
// doubling of it, one `thread_growth` report with their creating stacks,
// most threads first — a pool that never stops growing shows where.
#ifndef FL_THREAD_GROWTH_H
#define FL_THREAD_GROWTH_H

/// Reads the option. Install time.
void fl_thread_growth_init(void);
/// After a thread was created: reports when the live count reached the
/// next mark. Not async-signal-safe (pthread_create is not either).
void fl_thread_growth_check(void);

#endif
