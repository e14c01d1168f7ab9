// Opening the report directory at start-up, for the agent and the malloc
// shim alike. A directory the process cannot write into is found here, said
// in one line, and the process's reports go to stderr instead of nowhere:
// the usual case is a program run as root under `faultline exec` that drops
// its privileges (runuser, setpriv, a daemon) below a root-owned 0700
// directory.
#ifndef FL_REPORT_DIR_OPEN_H
#define FL_REPORT_DIR_OPEN_H

/// Set by the agent or the malloc shim to the directory it could not open,
/// once the line is said: the other one, starting after it, and the
/// processes it starts do not say it again (one line per process tree, not
/// one per program a script runs). A process that could write and drops
/// its privileges for good says it and sets it at the drop, before it
/// starts anyone (report_dir_drop.h), so the siblings it starts next stay
/// quiet too (docs/agent.md, crash.refused-siblings).
#define FL_REPORT_DIR_REFUSED_ENV "FAULTLINE_REPORT_DIR_REFUSED"

/// Makes `path` and its parents if missing, opens it and checks that this
/// process may create files in it. Refused (EACCES, EPERM) while the
/// process's real uid or gid differs from its effective one (a program
/// exec'd after a temporary drop: real uid 0, effective 65534), it tries
/// once more with the calling thread's filesystem ids switched to the real
/// ones, and when that works the directory's reports are written at them
/// (fl_report_dir_opened_at). Returns the directory's fd, or -1 after
/// writing one line on stderr that names the directory, the reason and that
/// reports will go to stderr — unless `quiet`, or FL_REPORT_DIR_REFUSED_ENV
/// names `path`. Allocates nothing: the malloc shim calls it while it
/// starts.
int fl_report_dir_open(const char *path, int quiet);

/// 1 when FAULTLINE_REPORT_DIR_REFUSED names `path`: this process tree has
/// said already that it cannot write there. No allocation.
int fl_report_dir_refusal_said(const char *path);

/// The line fl_report_dir_open writes on stderr for directory `path`,
/// which the process cannot write into for reason `err` (an errno value;
/// EACCES and EPERM name the effective uid): "faultline: cannot write
/// reports into FAULTLINE_REPORT_DIR=…; this process's reports will go to
/// stderr …". Async-signal-safe, allocation-free.
void fl_report_dir_say_refused(const char *path, int err);

#endif
