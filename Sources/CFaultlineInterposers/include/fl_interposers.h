// The libc functions CFaultlineCore's mirrors need to see, interposed:
// the set*id family, setgroups, initgroups, capset and prctl
// (cred_interpose.c, which keeps Faultline's threads at the program's
// credentials) and unshare and setns (solo_interpose.c, which steps
// Faultline's threads aside). A target of their own so that
// CFaultlineCore interposes nothing and can be linked into a test
// process; the agent and the shim link both.
#ifndef FL_INTERPOSERS_H
#define FL_INTERPOSERS_H
#endif
