// A report directory a privilege drop has put out of reach, said at the
// drop. A server that can write into the run's directory (`faultline exec`
// as root, mode 0700), drops for good (setresuid to nobody) and then
// starts workers at once left each worker's agent to find the directory
// refused and say so: N workers, N lines. Said by the dropping process
// instead, the line is true for its own reports too, and the variable that
// marks the directory refused (FL_REPORT_DIR_REFUSED_ENV) is in its
// environment before it starts anyone.
#ifndef FL_REPORT_DIR_DROP_H
#define FL_REPORT_DIR_DROP_H

/// Called by the set*id interposers (cred_interpose.c) after a call that
/// succeeded. When this image opened a report directory at install, the
/// program has one thread (fl_program_threads), and the directory is not
/// already marked refused: checks whether a report could still be created
/// in it at the ids a report takes (fl_report_ids_take: a drop for a while
/// takes the directory's filesystem ids back, a drop for good cannot; a
/// capability that lets the thread write counts). Refused (EACCES, EPERM),
/// it says the line fl_report_dir_open says and puts
/// FL_REPORT_DIR_REFUSED_ENV into the environment (fl_environ_put), so the
/// other image's interposer, which runs next for the same call, and every
/// process started from here on stay quiet. With more threads it does
/// nothing: the environment cannot be changed safely under them, and the
/// line without the mark would be said once more. Leaves errno as it was.
/// Allocation-free and async-signal-safe (a handler may call setuid).
void fl_report_dir_after_setxid(void);

#endif
