#include "handler_mask.h"

void fl_handler_mask_fill(sigset_t *set) {
    sigfillset(set);
    // glibc's SIGCANCEL and SIGSETXID are the kernel's first two real-time
    // signals (__SIGRTMIN, 32), below what SIGRTMIN reports. Set by hand:
    // sigaddset refuses them. Signal n is bit n - 1.
    const unsigned bits = 8 * sizeof set->__val[0];
    for (int sig = __SIGRTMIN; sig < __SIGRTMIN + 2; sig++) set->__val[(sig - 1) / bits] |= 1ul << ((sig - 1) % bits);
}
