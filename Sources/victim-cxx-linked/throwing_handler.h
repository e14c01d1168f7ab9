// Commands whose SIGSEGV handler, installed before the agent, recovers by
// throwing a C++ exception out of it (throwing_handler.cpp).
#ifndef VICTIM_THROWING_HANDLER_H
#define VICTIM_THROWING_HANDLER_H

/// Installs the throwing SIGSEGV handler for throw-recovered-then-crash and
/// throw-recovered-threads (before the agent); returns 1 when `command` is
/// one of them.
int victim_throwing_prepare(const char *command);

/// throw-recovered-then-crash: one probe recovered by the throw, two lines
/// on stderr, then a NULL store the handler lets end the process.
/// throw-recovered-threads: 4 threads, released together, probe in each of
/// `count` rounds (default 50), every fault recovered by the throw; exits 0.
/// Does not return.
void victim_throwing_run(const char *command, const char *count);

#endif
