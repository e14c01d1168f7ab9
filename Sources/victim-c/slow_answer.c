// victim-c crash-beside-slow-answer: main crashes while thread
// 'slow-answer' waits in pause with the stack page that holds its caller's
// frame (the return address of slow_answer_wait) taken away: thread
// 'uffd-server' copied the page, registered it with userfaultfd and dropped
// it. The crash report's stack request reaches slow-answer, which claims it
// and unwinds; reading that return address faults, and uffd-server puts the
// page back only 300 ms later. So the answer is claimed and not written for
// 300 ms, with the thread asleep in the fault (not runnable): the requester
// must wait for a claimed request past its 50 ms timeout (as for a first
// unwind through unwind tables paged out to a slow disk), else the thread
// is listed without a stack. Needs root (userfaultfd for faults the kernel
// takes too; vm.unprivileged_userfaultfd is 0 on Debian).
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

void victim_null_deref(void);  // main.c

#define PAGE 4096u
/// How long uffd-server keeps the page away once the unwind faults on it.
#define SERVE_DELAY_US 300000u

static volatile uintptr_t g_page;  // the page slow-answer's caller frame is on
static volatile pid_t g_slow_tid;
static volatile int g_dropped;

/// Parks in pause with its frame large enough that nothing below the page
/// of its return address is touched while it waits.
__attribute__((noinline)) static void slow_answer_wait(void) {
    volatile char pad[4 * PAGE];
    pad[0] = 0;
    g_page = ((uintptr_t)__builtin_frame_address(0) + sizeof(void *)) & ~(uintptr_t)(PAGE - 1);
    for (;;) pause();
}

__attribute__((noinline)) static void slow_answer_outer(void) {
    slow_answer_wait();
}

static void *slow_answer_thread(void *unused) {
    pthread_setname_np(pthread_self(), "slow-answer");
    g_slow_tid = (pid_t)syscall(SYS_gettid);
    slow_answer_outer();
    return unused;
}

/// 1 once thread `tid` is inside the pause system call.
static int in_pause(pid_t tid) {
    char path[64], buf[64] = {0};
    snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    return n > 0 && atol(buf) == SYS_pause;
}

static void die(const char *what) {
    fprintf(stderr, "victim: uffd-server: %s: %s\n", what, strerror(errno));
    exit(3);
}

static void *uffd_server_thread(void *unused) {
    pthread_setname_np(pthread_self(), "uffd-server");
    while (!g_page || !g_slow_tid || !in_pause(g_slow_tid)) usleep(1000);
    static char saved[PAGE] __attribute__((aligned(PAGE)));
    memcpy(saved, (void *)g_page, PAGE);
    int uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
    if (uffd < 0) die("userfaultfd (needs root)");
    struct uffdio_api api = {.api = UFFD_API};
    if (ioctl(uffd, UFFDIO_API, &api) != 0) die("UFFDIO_API");
    struct uffdio_register reg = {.range = {.start = g_page, .len = PAGE}, .mode = UFFDIO_REGISTER_MODE_MISSING};
    if (ioctl(uffd, UFFDIO_REGISTER, &reg) != 0) die("UFFDIO_REGISTER");
    if (madvise((void *)g_page, PAGE, MADV_DONTNEED) != 0) die("madvise");
    g_dropped = 1;
    struct pollfd p = {.fd = uffd, .events = POLLIN};
    while (poll(&p, 1, -1) == 1) {
        struct uffd_msg msg;
        if (read(uffd, &msg, sizeof msg) != sizeof msg || msg.event != UFFD_EVENT_PAGEFAULT) continue;
        usleep(SERVE_DELAY_US);
        fprintf(stderr, "victim: uffd-server puts back the page slow-answer faulted on, %u ms later\n", SERVE_DELAY_US / 1000);
        struct uffdio_copy copy = {.dst = g_page, .src = (uintptr_t)saved, .len = PAGE};
        if (ioctl(uffd, UFFDIO_COPY, &copy) != 0) die("UFFDIO_COPY");
    }
    return unused;
}

void victim_crash_beside_slow_answer(void) {
    pthread_t slow, server;
    pthread_create(&slow, 0, slow_answer_thread, 0);
    pthread_create(&server, 0, uffd_server_thread, 0);
    while (!g_dropped) usleep(1000);
    victim_null_deref();
}
