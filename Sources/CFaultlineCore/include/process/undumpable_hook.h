// A moment before the process may become non-dumpable: a set*id call (a
// change of uid makes it so) or prctl(PR_SET_DUMPABLE, 0). Its mode 0400
// /proc/self files (task/N/syscall) become root's then and can no longer be
// opened by it, while an fd opened before still reads. The hang probe opens
// the one it needs here, rather than holding it from install in every
// process (issue 37: the agent holds as few fds as it can).
#ifndef FL_UNDUMPABLE_HOOK_H
#define FL_UNDUMPABLE_HOOK_H

/// Sets the function fl_undumpable_coming calls (one per image; NULL:
/// none). Install time.
void fl_undumpable_hook_set(void (*hook)(void));

/// Called by the set*id and prctl interposers (cred_interpose.c) before
/// the call: runs the hook, if any, keeping errno. Async-signal-safe when
/// the hook is.
void fl_undumpable_coming(void);

#endif
