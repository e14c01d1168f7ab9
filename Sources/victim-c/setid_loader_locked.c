// victim-c setid-loader-locked: the program's first setresuid (a no-op one,
// -1 everywhere) and unshare(0) while another thread's dlopen holds the
// loader's lock, its library's constructor waiting for main.
#include "victim_threads.h"

#include <sched.h>
#include <stdio.h>
#include <unistd.h>

int victim_setid_loader_locked(void);

int victim_setid_loader_locked(void) {
    if (victim_start_dlopen_holder() != 0) return 2;
    int a = setresuid((uid_t)-1, (uid_t)-1, (uid_t)-1);
    int b = unshare(0);
    printf("victim: setresuid %d, unshare %d while another thread's dlopen held the loader's lock\n", a, b);
    victim_release_dlopen_holder();
    printf("victim: the loader's lock was released after\n");
    return a == 0 && b == 0 ? 0 : 1;
}
