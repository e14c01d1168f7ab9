// victim-c setid-loader-locked: the program's first setresuid (a no-op one,
// -1 everywhere), unshare(0), setrlimit (the same limit) and close_range (of
// no fd), all interposed by the agent, while another thread's dlopen holds the
// loader's lock, its library's constructor waiting for main.
#include "victim_threads.h"

#include <sched.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

int victim_setid_loader_locked(void);

int victim_setid_loader_locked(void) {
    if (victim_start_dlopen_holder() != 0) return 2;
    int a = setresuid((uid_t)-1, (uid_t)-1, (uid_t)-1);
    int b = unshare(0);
    struct rlimit files;
    int c = getrlimit(RLIMIT_NOFILE, &files) == 0 ? setrlimit(RLIMIT_NOFILE, &files) : -1;  // the same limit again
    int d = close_range(1000000, 1000001, 0);  // no fd there
    printf("victim: setresuid %d, unshare %d, setrlimit %d, close_range %d while another thread's dlopen held the loader's lock\n", a, b, c, d);
    victim_release_dlopen_holder();
    printf("victim: the loader's lock was released after\n");
    return a == 0 && b == 0 && c == 0 && d == 0 ? 0 : 1;
}
