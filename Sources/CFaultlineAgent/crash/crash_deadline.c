#include "crash_deadline.h"
#include "raw_syscall.h"

#include <stdatomic.h>
#include <string.h>
#include <time.h>

// The kernel's struct sigevent for SIGEV_THREAD_ID (glibc's hides the tid
// field behind a union member name that differs between versions).
struct kernel_sigevent {
    union { int sival_int; void *sival_ptr; } value;
    int signo;
    int notify;
    int tid;
    int pad[12];
};

#ifndef SIGEV_THREAD_ID
#define SIGEV_THREAD_ID 4
#endif

static int g_cookie;             // its address tells our timer's signals apart
static atomic_int g_timer = -1;  // kernel timer id, -1 when none (disarmed)

int fl_deadline_arm(pid_t tid, uint64_t ms) {
    if (ms == 0) return 0;
    int id = atomic_load(&g_timer);
    if (id < 0) {
        struct kernel_sigevent ev;
        memset(&ev, 0, sizeof ev);
        ev.value.sival_ptr = &g_cookie;
        ev.signo = FL_DEADLINE_SIGNAL;
        ev.notify = SIGEV_THREAD_ID;
        ev.tid = tid;
        int made = -1;
        if (fl_raw_syscall(SYS_timer_create, CLOCK_MONOTONIC, (long)&ev, (long)&made, 0) != 0) return -1;
        id = made;
        atomic_store(&g_timer, id);
    }
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    its.it_value.tv_sec = (time_t)(ms / 1000);
    its.it_value.tv_nsec = (long)(ms % 1000) * 1000000L;
    return fl_raw_syscall(SYS_timer_settime, id, 0, (long)&its, 0) == 0 ? 0 : -1;
}

void fl_deadline_disarm(void) {
    // The id goes first: a signal the timer queued before the delete is
    // then seen as not armed, and ignored.
    int id = atomic_exchange(&g_timer, -1);
    if (id >= 0) fl_raw_syscall(SYS_timer_delete, id, 0, 0, 0);
}

int fl_deadline_is_ours(const siginfo_t *info) {
    return info && info->si_code == SI_TIMER && info->si_value.sival_ptr == (void *)&g_cookie;
}

int fl_deadline_armed(void) { return atomic_load(&g_timer) >= 0; }
