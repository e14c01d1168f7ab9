#include "no_fds.h"
#include "../leak_sites.h"
#include "victim_fds.h"
#include "victim_leak_check.h"

#include <errno.h>
#include <stdio.h>

int victim_no_fds_left(void) {
    victim_leak_check_fn check = victim_leak_check_needed();
    if (!check) return 2;
    fill_cache();
    leak_77();
    victim_clear_stack();
    victim_use_up_fds();
    int err = errno;
    long lost = check();
    victim_release_fds();
    printf("victim: opened /dev/null until %s; on-demand check with no fd left: %ld\n", err == EMFILE ? "EMFILE" : "another error", lost);
    return 0;
}

int victim_no_fds_at_exit(void) {
    fill_cache();
    leak_77();
    victim_clear_stack();
    int n = victim_use_up_fds();
    printf("victim: opened %d fds until %s; exiting with them open\n", n, errno == EMFILE ? "EMFILE" : "another error");
    return 0;
}
