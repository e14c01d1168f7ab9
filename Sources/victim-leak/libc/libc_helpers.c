// victim-leak libc-helpers: blocks that libc allocates for its caller, each
// lost from a named function: strdup, strndup, asprintf, asprintf under
// _FORTIFY_SOURCE (__asprintf_chk), getline, realpath and getcwd(NULL, 0).
// libc keeps no frame pointers: these blocks' stacks used to stop in libc.
#include "libc_helpers.h"

#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/// What glibc's fortified asprintf calls (declared only when fortifying).
extern int __asprintf_chk(char **out, int flag, const char *fmt, ...);

static char *volatile g_last;

__attribute__((noinline)) static void lose_strdup(void) { g_last = strdup("a string from strdup"); }
__attribute__((noinline)) static void lose_strndup(void) { g_last = strndup("a string from strndup", 9); }
__attribute__((noinline)) static void lose_asprintf(void) {
    char *s;
    if (asprintf(&s, "%s %d", "asprintf", 1) > 0) g_last = s;
}
__attribute__((noinline)) static void lose_asprintf_chk(void) {
    char *s;
    if (__asprintf_chk(&s, 1, "%s %d", "__asprintf_chk", 2) > 0) g_last = s;
}
__attribute__((noinline)) static void lose_getline(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char *line = 0;
    size_t cap = 0;
    if (f && getline(&line, &cap, f) > 0) g_last = line;
    if (f) fclose(f);
}
__attribute__((noinline)) static void lose_realpath(void) { g_last = realpath("/proc/self/exe", 0); }
__attribute__((noinline)) static void lose_getcwd(void) { g_last = getcwd(0, 0); }

int victim_libc_helpers(void) {
    lose_strdup();
    lose_strndup();
    lose_asprintf();
    lose_asprintf_chk();
    lose_getline();
    lose_realpath();
    lose_getcwd();
    g_last = 0;
    printf("victim: lost blocks from strdup, strndup, asprintf, __asprintf_chk, getline, realpath and getcwd\n");
    return 0;
}

// --- libc-helper-jump: leaving a wrapped libc function by siglongjmp -----------

static sigjmp_buf g_timeout;

static void on_alarm(int sig) {
    (void)sig;
    siglongjmp(g_timeout, 1);
}

/// getline on a pipe nobody writes to, given up after 100 ms by a SIGALRM
/// handler that jumps out: the classic timeout around a blocking call.
__attribute__((noinline)) static int read_with_timeout(void) {
    int fds[2];
    if (pipe(fds) != 0) return -1;
    FILE *f = fdopen(fds[0], "r");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, 0);
    int timed_out = 0;
    if (sigsetjmp(g_timeout, 1) == 0) {
        char *line = 0;
        size_t cap = 0;
        ualarm(100000, 0);
        if (getline(&line, &cap, f) > 0) g_last = line;
    } else {
        timed_out = 1;
    }
    close(fds[1]);
    return timed_out;
}

__attribute__((noinline)) static void lose_after_jump(void) {
    volatile char *p = malloc(55);
    p[0] = 1;
    g_last = (char *)p;
}

int victim_libc_helper_jump(void) {
    int timed_out = read_with_timeout();
    lose_after_jump();
    g_last = 0;
    printf("victim: getline %s; then lost a 55-byte block\n", timed_out ? "timed out by siglongjmp" : "returned");
    return 0;
}

// --- libc-helper-reentry: allocations of the program's own made while a
// wrapped libc call runs -------------------------------------------------------

static int g_wake_fd = -1;

__attribute__((noinline)) static void handler_alloc(void) {
    volatile char *p = malloc(77);
    p[0] = 1;
    g_last = (char *)p;
    g_last = strdup("a string strdup'ed by a signal handler");
}

static void on_alarm_wake(int sig) {
    (void)sig;
    handler_alloc();
    if (write(g_wake_fd, "line\n", 5) != 5) {}  // getline, blocked in read, gets its line
}

/// getline on a pipe whose only writer is a SIGALRM handler, which first
/// allocates (malloc and strdup) while getline's read is interrupted.
__attribute__((noinline)) static void getline_woken_by_handler(void) {
    int fds[2];
    if (pipe(fds) != 0) return;
    g_wake_fd = fds[1];
    FILE *f = fdopen(fds[0], "r");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm_wake;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, 0);
    ualarm(100000, 0);
    char *line = 0;
    size_t cap = 0;
    if (getline(&line, &cap, f) > 0) free(line);
    fclose(f);
    close(fds[1]);
}

static ssize_t cookie_read(void *cookie, char *buf, size_t size) {
    int *calls = cookie;
    if ((*calls)++ || size < 3) return 0;
    volatile char *p = malloc(66);
    p[0] = 1;
    g_last = (char *)p;
    memcpy(buf, "hi\n", 3);
    return 3;
}

/// getline on a fopencookie stream whose read function allocates.
__attribute__((noinline)) static void getline_from_cookie(void) {
    int calls = 0;
    cookie_io_functions_t io = {.read = cookie_read};
    FILE *f = fopencookie(&calls, "r", io);
    char *line = 0;
    size_t cap = 0;
    if (f && getline(&line, &cap, f) > 0) free(line);
    if (f) fclose(f);
}

int victim_libc_helper_reentry(void) {
    getline_woken_by_handler();
    getline_from_cookie();
    g_last = 0;
    printf("victim: a signal handler and a fopencookie read function allocated inside getline\n");
    return 0;
}
