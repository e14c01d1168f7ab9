// Programs that wait for events once, or in a loop that then returns, and
// then compute or sleep on main: inferred mode must not take them for a
// hung event loop (docs/hangs.md). And beside them a real loop on a socket
// pair whose handler spins, which must still be caught.
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static uint64_t mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/// Burns `ms` of CPU on the calling thread.
__attribute__((noinline)) static void invisible_compute(int ms) {
    volatile uint64_t x = 0;
    for (uint64_t end = mono_ms() + (uint64_t)ms; mono_ms() < end;)
        for (int i = 0; i < 10000; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
}

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    while (nanosleep(&ts, &ts) != 0) {}
}

static int arg_ms(int argc, char **argv, int def) { return argc > 2 ? atoi(argv[2]) : def; }

/// One select on a socket pair (as CPython's test_signal does), 1 s of
/// computing, then a 1.2 s sleep: a test, not a loop.
int victim_cmd_select_once_then_sleep(int argc, char **argv, char **envp) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return 2;
    if (write(sv[1], "x", 1) != 1) return 2;
    fd_set r;
    FD_ZERO(&r);
    FD_SET(sv[0], &r);
    struct timeval tv = {0, 300000};
    usleep(200000);  // the socket has data: select returns at once
    select(sv[0] + 1, &r, 0, 0, &tv);
    struct pollfd p = {.fd = sv[0], .events = POLLRDHUP};
    poll(&p, 1, 400);  // one wait that lasts (nothing comes)
    invisible_compute(arg_ms(argc, argv, 1000));
    sleep_ms(1200);
    puts("victim: select-once: done");
    return 0;
}

/// A fuzz-like test: waits for events twice at start (a main context
/// iterated while setting up), then computes MS (4600) ms on main.
int victim_cmd_fuzz_compute(int argc, char **argv, char **envp) {
    int e = eventfd(0, EFD_CLOEXEC);
    struct pollfd p = {.fd = e, .events = POLLIN};
    poll(&p, 1, 150);
    poll(&p, 1, 150);
    invisible_compute(arg_ms(argc, argv, 4600));
    puts("victim: fuzz-compute: done");
    return 0;
}

/// A loop of 20 ms selects on a socket pair for 1 s, then a handler that
/// spins MS (3000) ms: a real event-loop hang.
int victim_cmd_select_loop_spin(int argc, char **argv, char **envp) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return 2;
    for (uint64_t end = mono_ms() + 1000; mono_ms() < end;) {
        fd_set r;
        FD_ZERO(&r);
        FD_SET(sv[0], &r);
        struct timeval tv = {0, 20000};
        select(sv[0] + 1, &r, 0, 0, &tv);
    }
    fprintf(stderr, "victim: select-loop: handler spinning\n");
    invisible_compute(arg_ms(argc, argv, 3000));
    fprintf(stderr, "victim: main thread responsive again\n");
    for (uint64_t end = mono_ms() + 400; mono_ms() < end;) {
        struct pollfd p = {.fd = sv[0], .events = POLLIN};
        poll(&p, 1, 20);
    }
    return 0;
}
