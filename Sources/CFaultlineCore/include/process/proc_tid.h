// Thread ids when /proc belongs to another pid namespace than the process:
// `unshare --pid --fork` without `--mount-proc`, or a sandbox that keeps the
// host's /proc. /proc/self and /proc/self/task then name the process and
// its threads by their ids in /proc's namespace, while getpid(), gettid()
// and tgkill() use the process's own: a thread listed in /proc/self/task
// cannot be signalled by that number, and /proc/self/task/<gettid()> is
// not there (or, worse, another thread). Every function here returns its
// argument unchanged when /proc is the process's own, which is checked
// once per process (again after a fork into a new pid namespace).
#ifndef FL_PROC_TID_H
#define FL_PROC_TID_H

#include <sys/types.h>

/// 1 when /proc is another pid namespace's (its /proc/self is not
/// getpid()), 0 when it is ours or cannot be read. Async-signal-safe.
int fl_proc_foreign(void);

/// The id /proc uses for the thread whose id (gettid, tgkill) is `tid`: for
/// building /proc/self/task/<id>/… paths. `tid` itself when /proc is ours;
/// 0 when /proc is foreign and no listed thread has that id.
/// Async-signal-safe.
pid_t fl_proc_tid(pid_t tid);

/// The process's own id (gettid, tgkill) for the thread /proc/self/task
/// lists as `proc_tid` (the last NSpid field of its status). `proc_tid`
/// itself when /proc is ours; 0 when it cannot be told. Async-signal-safe.
pid_t fl_ns_tid(pid_t proc_tid);

/// Writes "/proc/<proc_tid>/<file>" into `path` (64 bytes are enough for
/// any file name here); returns its length. For files of another of our
/// threads, named by /proc's id (fl_proc_tid): through /proc/<id>, not
/// /proc/self/task/<id>. A file looked up under /proc/<pid>/task/<id> of a
/// thread other than the main one left a dentry there that made the parent's
/// wait4 for the process cost milliseconds (the kernel's invalidation of
/// /proc/<pid> walked it in a loop): 3 to 9 ms per process in a shell loop.
/// Async-signal-safe.
size_t fl_proc_task_path(char *path, size_t cap, pid_t proc_tid, const char *file);

/// Writes the path of the calling thread's own /proc file `file` (its
/// maps, pagemap, comm, exe) into `path`; returns its length.
/// "/proc/self/<file>" on the main thread; "/proc/<id>/<file>" on another,
/// which stays readable after the main thread has ended (pthread_exit),
/// unlike /proc/self's. Never /proc/thread-self/, a task-directory dentry
/// (fl_proc_task_path) unless /proc's id for the thread cannot be found.
/// Async-signal-safe.
size_t fl_proc_self_path(char *path, size_t cap, const char *file);

/// Opens the calling thread's own /proc file `file` read-only
/// (fl_proc_self_path), else /proc/self/<file>; the fd is a high one
/// (fl_open_high), or -1 with errno. Async-signal-safe.
int fl_open_own_proc_file(const char *file);

#endif
