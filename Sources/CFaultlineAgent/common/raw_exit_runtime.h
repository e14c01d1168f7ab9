// Runtimes that end the process with a raw exit_group system call, past
// libc's exit and _exit: no destructor, atexit handler or interposed _exit
// of ours runs, so nothing can wait for stderr capture's drain thread
// before the process is gone.
#ifndef FL_RAW_EXIT_RUNTIME_H
#define FL_RAW_EXIT_RUNTIME_H

/// 1 when the process carries Go's runtime with cgo (the only way a Go
/// program loads the agent): the executable exports `x_cgo_init`. Go ends
/// every program, after main returns as after os.Exit or a panic, with a
/// raw exit_group. Not async-signal-safe (dlsym); call at install.
int fl_runtime_exits_raw(void);

#endif
