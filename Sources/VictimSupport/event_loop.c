#include "victim_event_loop.h"

#include <poll.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <time.h>

static uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void victim_idle_like_event_loop(int ms) {
    static int wakeup = -1;
    if (wakeup < 0) wakeup = eventfd(0, EFD_CLOEXEC);
    struct pollfd p = {.fd = wakeup, .events = POLLIN};
    uint64_t until = now_ms() + (uint64_t)ms;
    // In 20 ms waits, as a loop with a timer does: the watchdog takes main
    // for an event loop only once it has seen it wait repeatedly.
    for (uint64_t t = now_ms(); t < until; t = now_ms()) poll(&p, 1, (int)(until - t < 20 ? until - t : 20));
}
