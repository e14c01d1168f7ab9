// What victims need to change user the way daemons and su-like programs do,
// for the scenarios where a report is written at another user's ids.
#ifndef VICTIM_EUID_H
#define VICTIM_EUID_H

/// As root, makes the process user and group 65534 (nobody), `how`:
/// "temporary": setegid then seteuid, the real and saved ids staying 0, so
/// it could take root back (what a daemon does around untrusted work);
/// "permanent": setresgid then setresuid with all three ids 65534, for good.
/// Says which on stderr. Returns 0, or -1 after a line saying why (not root,
/// an unknown `how`, a call that failed).
int victim_become_nobody(const char *how);

/// Waits up to 3 s for every thread of the process to show the main
/// thread's Uid, Gid and CapEff lines in /proc/self/task/N/status: the
/// same real, effective, saved and filesystem ids and effective
/// capabilities. Returns 0, or -1 after a line on stderr naming a thread
/// that still differs and how.
int victim_threads_have_main_ids(void);

#endif
