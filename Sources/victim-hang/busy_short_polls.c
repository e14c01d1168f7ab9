// busy-short-polls: an event loop busy with 30 ms work items that returns to
// poll between them, where its next event (a timerfd) is 200 us away: it
// blocks there about a quarter of a millisecond each time. The watchdog's
// ticks (every 50 ms) almost never find it inside poll; what shows it is
// moving is that it blocks and wakes between ticks (voluntary context
// switches), which inferred mode takes as responsive (docs/hangs.md).
#include "victim_event_loop.h"

#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static uint64_t mono_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/// One unit of work: about 30 ms of CPU.
__attribute__((noinline)) static void short_polls_work_item(void) {
    volatile uint64_t x = 0;
    for (uint64_t end = mono_us() + 30000; mono_us() < end;)
        for (int i = 0; i < 1000; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
}

/// Waits in poll for the timer, due `us` microseconds from now.
static void poll_for_timer(int tfd, long us) {
    struct itimerspec t = {{0, 0}, {0, us * 1000}};
    timerfd_settime(tfd, 0, &t, 0);
    struct pollfd p = {.fd = tfd, .events = POLLIN};
    uint64_t expirations;
    while (poll(&p, 1, -1) != 1) {}  // again after the sample signal's EINTR
    if (read(tfd, &expirations, sizeof expirations) < 0) {}
}

int victim_cmd_busy_short_polls(int argc, char **argv, char **envp) {
    int ms = argc > 2 ? atoi(argv[2]) : 4000;
    int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    if (tfd < 0) { perror("victim: timerfd_create"); return 3; }
    victim_idle_like_event_loop(800);
    fprintf(stderr, "victim: event loop: 30 ms work items, back in poll for 0.2 ms between them, for %d ms\n", ms);
    for (uint64_t end = mono_us() + (uint64_t)ms * 1000; mono_us() < end;) {
        short_polls_work_item();
        poll_for_timer(tfd, 200);
    }
    fprintf(stderr, "victim: busy-short-polls: done\n");
    return 0;
}
