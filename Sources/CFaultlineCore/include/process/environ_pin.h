// Keeping the environment array a program's main() receives valid for the
// life of the process.
//
// The agent adds variables at install (its image marker, the stderr
// capture's pipe and fd), before main runs. glibc then moves `environ` to
// a malloc'd array, and main's `envp` is that array. When the program grows
// the environment itself (setenv of a new name), glibc reallocs the array
// and frees the old one, so a program that later passes main's `envp` to
// execve hands the kernel freed memory: `faultline exec -- capsh
// --user=nobody --shell=/bin/sh -- -c id` failed with "execve '/bin/sh'
// failed!" (EFAULT). Without the agent the first array is the kernel's, on
// the stack, which glibc never frees, so the same program works. The malloc
// shim preloaded alone sets a variable too, when it cannot write into its
// report directory (FL_REPORT_DIR_REFUSED_ENV), and pins the same way.
#ifndef FL_ENVIRON_PIN_H
#define FL_ENVIRON_PIN_H

/// Copies `environ` into memory that is never freed (an anonymous mapping)
/// and points `environ` there, so the array main() receives outlives any
/// setenv. Call after the image's own setenv calls (the agent's at the end
/// of install). Not async-signal-safe.
void fl_environ_pin(void);

/// Puts `entry` ("NAME=value", which must outlive the process: a static
/// buffer) into the environment in place of any NAME, the way
/// fl_environ_pin copies it: a new array in an anonymous mapping, never
/// freed. Unlike setenv it allocates nothing and takes no lock, so it may
/// run where setenv could not (a set*id interposer, which a signal handler
/// may reach). It is no safer than setenv against other threads: one that
/// reads the environment meanwhile sees the old array or the new, but one
/// that sets a variable meanwhile loses it or this — call it only while
/// the program has a single thread (fl_program_threads). Async-signal-safe.
void fl_environ_put(const char *entry);

#endif
