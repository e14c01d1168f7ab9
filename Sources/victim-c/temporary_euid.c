// victim-c crash-as-nobody HOW: a root program becomes user 65534 (nobody)
// for a while (HOW temporary: seteuid, as a daemon does around untrusted
// work; its real and saved uid stay 0) or for good (HOW permanent:
// setresuid), then dereferences NULL on the main thread. The report
// directory the agent opened at start is root's and not writable by nobody.
#include "victim_euid.h"

#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

void victim_null_deref(void);  // main.c

NOINLINE void victim_crash_as_nobody(const char *how) {
    if (victim_become_nobody(how) != 0) exit(3);
    victim_null_deref();
}
