// victim-hang: main-thread hangs and deadlocks, one per subcommand, for the
// hang detector's scenarios. Runs under the preloaded agent; the commands
// that drive their own loop call faultline_heartbeat when the agent provides
// it (a weak reference: the program runs without the agent too).
#include "victim_cases.h"
#include "victim_event_loop.h"
#include "victim_euid.h"
#include "victim_fds.h"
#include "victim_namespaces.h"
#include "victim_threads.h"

int victim_cmd_late_answer_elsewhere(int argc, char **argv, char **envp);  // late_answer_elsewhere.c
int victim_cmd_cut_stacks(int argc, char **argv, char **envp);  // cut_stacks.c
int victim_cmd_busy_short_polls(int argc, char **argv, char **envp);  // busy_short_polls.c
int victim_cmd_select_once_then_sleep(int argc, char **argv, char **envp);  // invisible_waits.c
int victim_cmd_fuzz_compute(int argc, char **argv, char **envp);
int victim_cmd_select_loop_spin(int argc, char **argv, char **envp);
int victim_cmd_timed_cycle(int argc, char **argv, char **envp);  // timed_cycle.c
int victim_cmd_write_slow_pipe(int argc, char **argv, char **envp);  // pipe_backpressure.c
int victim_cmd_spin_in_startup_masks(int argc, char **argv, char **envp);  // startup_masks.c
int victim_cmd_spin_beside_stalled_starts(int argc, char **argv, char **envp);  // startup_masks.c

#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/eventfd.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/// Provided by the Faultline agent (linked or preloaded); NULL without it.
extern void faultline_heartbeat(void) __attribute__((weak));

static void heartbeat(void) {
    if (faultline_heartbeat) faultline_heartbeat();
}

static uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t wall_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "victim: %s\n", line);
}

/// Waits for events as an idle event loop does (victim_event_loop.h).
static void idle_ms(int ms) { victim_idle_like_event_loop(ms); }

/// How long a victim's event loop idles before it misbehaves. Inferred mode
/// watches main only once a tick has seen it waiting for events: with
/// 300 ms, a watchdog starved at load 6 (two suites at once) missed the
/// whole idle now and then, and the hang went unwatched ("found none").
#define LOOP_IDLE_MS 800

static void name_thread(const char *name) { pthread_setname_np(pthread_self(), name); }

static int arg_ms(int argc, char **argv, int fallback) {
    return argc > 2 ? atoi(argv[2]) : fallback;
}

// --- hangs that end -------------------------------------------------------------

static volatile uint64_t g_sink;

/// Burns the CPU until `until_ms` (CLOCK_MONOTONIC).
__attribute__((noinline)) static void victim_spin(uint64_t until_ms) {
    uint64_t x = 0;
    while (now_ms() < until_ms) {
        for (int i = 0; i < 10000; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
        g_sink = x;
    }
}

__attribute__((noinline)) static void victim_recalculate_totals(int ms) {
    victim_spin(now_ms() + (uint64_t)ms);
}

static int cmd_spin_recover(int argc, char **argv, char **envp) {
    int ms = arg_ms(argc, argv, 3000);
    idle_ms(LOOP_IDLE_MS);
    say("spinning on the main thread for %d ms (started at %llu unix ms)", ms, (unsigned long long)wall_ms());
    victim_recalculate_totals(ms);
    say("main thread responsive again");
    idle_ms(400);
    return 0;
}

static void ignore_rt8(int sig) { (void)sig; }

static int g_reader_pipe[2];
static ssize_t g_reader_result;
static int g_reader_errno;

static void *interruptible_reader(void *arg) {
    name_thread("reader");
    char c;
    g_reader_result = read(g_reader_pipe[0], &c, 1);
    g_reader_errno = errno;
    return arg;
}

static int cmd_spin_beside_interruptible_reader(int argc, char **argv, char **envp) {
    // The program asks for EINTR from its own SIGRTMIN+8 (siginterrupt):
    // glibc's siginterrupt took SA_RESTART off the agent's handler on that
    // signal, so the hang report's stack request to 'reader' broke its read.
    signal(SIGRTMIN + 8, ignore_rt8);
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"  // still in glibc, and in programs
    siginterrupt(SIGRTMIN + 8, 1);
#pragma clang diagnostic pop
    struct sigaction back;
    sigaction(SIGRTMIN + 8, 0, &back);
    say("SIGRTMIN+8's action reads back %s SA_RESTART", back.sa_flags & SA_RESTART ? "with" : "without");
    if (pipe(g_reader_pipe) != 0) return 2;
    pthread_t t;
    pthread_create(&t, 0, interruptible_reader, 0);
    int rc = cmd_spin_recover(argc, argv, envp);
    if (write(g_reader_pipe[1], "x", 1) != 1) return 2;
    pthread_join(t, 0);
    if (g_reader_result == 1) say("the reader's read returned 1 byte");
    else say("the reader's read returned %zd (%s)", g_reader_result, strerror(g_reader_errno));
    return g_reader_result == 1 ? rc : 3;
}

static int cmd_spin_out_of_fds(int argc, char **argv, char **envp) {
    // A program that leaks fds until open() fails, and then hangs: the
    // watchdog's /proc reads and both reports need an fd each. Its event
    // loop's eventfd was made before (idle_ms(0)), as a loop's is.
    idle_ms(0);
    int n = victim_use_up_fds();
    say("opened %d fds until %s", n, errno == EMFILE ? "EMFILE" : "another error");
    int rc = cmd_spin_recover(argc, argv, envp);
    victim_release_fds();
    return rc;
}

static int cmd_spin_after_namespaces(int argc, char **argv, char **envp) {
    // unshare -r and nsenter's calls (victim_namespaces.h): Faultline stops
    // its watchdog around them and starts it again, which must then still
    // see the hang.
    int failed = victim_enter_namespaces(0);
    say("%d namespace step(s) failed", failed);
    return cmd_spin_recover(argc, argv, envp);
}

static int cmd_spin_small_altstack(int argc, char **argv, char **envp) {
    // Many programs and libraries give a thread an alternate signal stack of
    // the old SIGSTKSZ (8 KiB) of their own, replacing the agent's: the
    // watchdog's sample signal is then answered on it. mmap'd with a guard
    // page below, so a handler that outgrows it faults instead of silently
    // corrupting what lies beneath.
    enum { OLD_SIGSTKSZ = 8192 };
    long page = sysconf(_SC_PAGESIZE);
    char *p = mmap(0, OLD_SIGSTKSZ + (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED || mprotect(p, (size_t)page, PROT_NONE) != 0) { say("mmap: %s", strerror(errno)); return 3; }
    stack_t ss = { .ss_sp = p + page, .ss_size = OLD_SIGSTKSZ, .ss_flags = 0 };
    if (sigaltstack(&ss, 0) != 0) { say("sigaltstack: %s", strerror(errno)); return 3; }
    int ms = arg_ms(argc, argv, 3000);
    idle_ms(LOOP_IDLE_MS);
    say("spinning on the main thread, which has an 8 KiB alternate stack of its own, for %d ms", ms);
    victim_recalculate_totals(ms);
    say("main thread responsive again");
    idle_ms(400);
    return 0;
}

static int cmd_batch(int argc, char **argv, char **envp) {
    // A batch program: main computes, then sleeps, and never waits for
    // events (no poll, no epoll). Inferred mode must not call that a hang.
    int ms = arg_ms(argc, argv, 2500);
    say("batch: computing on the main thread for %d ms, then sleeping as long", ms);
    victim_recalculate_totals(ms);
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {}
    say("batch: done");
    return 0;
}

static int cmd_epoll_spin(int argc, char **argv, char **envp) {
    // An epoll event loop (libuv's, asyncio's): idle in epoll_wait on an
    // eventfd and a pipe, then a handler spins. Inferred mode reads the
    // descriptors an epoll watches from /proc/self/fdinfo.
    int ms = arg_ms(argc, argv, 3000);
    int ep = epoll_create1(EPOLL_CLOEXEC), wakeup = eventfd(0, EFD_CLOEXEC), fds[2];
    if (ep < 0 || wakeup < 0 || pipe2(fds, O_CLOEXEC) != 0) { say("epoll setup: %s", strerror(errno)); return 3; }
    struct epoll_event e = {.events = EPOLLIN};
    e.data.fd = fds[0];
    epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &e);
    e.data.fd = wakeup;
    epoll_ctl(ep, EPOLL_CTL_ADD, wakeup, &e);
    struct epoll_event got;
    // Longer than LOOP_IDLE_MS: under stress-ng the watchdog's first tick
    // came after a 300 ms idle in 2 runs of 30, and a loop never seen
    // waiting is not watched.
    uint64_t until = now_ms() + 1000;
    // In 20 ms waits, as a loop with a timer: one wait is not a loop.
    for (uint64_t t = now_ms(); t < until; t = now_ms()) epoll_wait(ep, &got, 1, until - t < 20 ? (int)(until - t) : 20);
    say("epoll: spinning on the main thread for %d ms", ms);
    victim_recalculate_totals(ms);
    say("main thread responsive again");
    until = now_ms() + 400;
    for (uint64_t t = now_ms(); t < until; t = now_ms()) epoll_wait(ep, &got, 1, (int)(until - t));
    return 0;
}

static int cmd_child_pipes_then_spin(int argc, char **argv, char **envp) {
    // A batch program that runs a command and reads its output the way
    // Python's subprocess.run(capture_output=True) does: poll on the
    // child's stdout and stderr pipes until both close, then computes on
    // main. Waiting on pipes alone is waiting for a child, not an event
    // loop: inferred mode must not watch main from then on.
    int ms = arg_ms(argc, argv, 2500);
    int out[2], err[2];
    if (pipe(out) != 0 || pipe(err) != 0) { say("pipe: %s", strerror(errno)); return 3; }
    pid_t child = fork();
    if (child == 0) {
        dup2(out[1], 1);
        dup2(err[1], 2);
        execlp("sh", "sh", "-c", "sleep 1; echo child output", (char *)0);
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    struct pollfd p[2] = {{.fd = out[0], .events = POLLIN}, {.fd = err[0], .events = POLLIN}};
    char buf[256];
    for (int open_fds = 2; open_fds > 0;) {
        if (poll(p, 2, -1) < 0) { if (errno == EINTR) continue; say("poll: %s", strerror(errno)); return 3; }
        for (int i = 0; i < 2; i++) {
            if (p[i].fd < 0 || !p[i].revents) continue;
            if (read(p[i].fd, buf, sizeof buf) <= 0) { close(p[i].fd); p[i].fd = -1; open_fds--; }
        }
    }
    waitpid(child, 0, 0);
    say("child-pipes: the child's output is read; computing on the main thread for %d ms", ms);
    victim_recalculate_totals(ms);
    say("child-pipes: done");
    return 0;
}

static int cmd_select_sleep_then_spin(int argc, char **argv, char **envp) {
    // Sleeping with select on no descriptor (old portable code does) and
    // with poll on none is a sleep, not an event loop's wait.
    int ms = arg_ms(argc, argv, 2500);
    struct timeval tv = {0, 700000};
    while (select(0, 0, 0, 0, &tv) != 0 && errno == EINTR) {}
    poll(0, 0, 700);
    say("select-sleep: slept in select and poll on no descriptor; computing on the main thread for %d ms", ms);
    victim_recalculate_totals(ms);
    say("select-sleep: done");
    return 0;
}

// --- spinning while another thread holds the loader lock --------------------------

static int cmd_spin_holding_loader_lock(int argc, char **argv, char **envp) {
    // A thread parked inside a dl_iterate_phdr callback holds the dynamic
    // linker's lock for good; libunwind would wait for it, so the sampled
    // main thread walks its frame pointers and the report must say so.
    victim_start_loader_lock_holder();
    int ms = arg_ms(argc, argv, 3000);
    idle_ms(LOOP_IDLE_MS);
    say("thread 'lock-holder' holds the dynamic linker's lock; spinning on the main thread for %d ms", ms);
    victim_recalculate_totals(ms);
    say("main thread responsive again");
    idle_ms(400);
    return 0;
}

// --- late answers --------------------------------------------------------------

static volatile int g_stop_late;

/// Blocks the calling thread in vfork, again and again, for 70 ms at a time:
/// the parent thread of a vfork runs no signal handler until its child has
/// exited, so a sample request sent meanwhile times out (50 ms) and the
/// answer comes later, while the requester has moved on.
__attribute__((noinline)) static void late_vfork_loop(void) {
    while (!g_stop_late) {
        pid_t pid = vfork();
        if (pid == 0) {
            // Only raw system calls in a vfork child (it borrows the
            // parent's memory and stack; the agent wraps _exit).
            struct timespec ts = {0, 70 * 1000000};
            syscall(SYS_nanosleep, &ts, 0);
            syscall(SYS_exit, 0);
        }
        if (pid > 0) waitpid(pid, 0, 0);
    }
}

static void *late_thread(void *arg) {
    name_thread((const char *)arg);
    late_vfork_loop();
    return 0;
}

/// Two threads that answer at once, each in a function of its own: the
/// report must show each one's own stack, never another thread's.
__attribute__((noinline)) static void steady_wait_a(void) { for (;;) pause(); }
__attribute__((noinline)) static void steady_wait_b(void) { for (;;) pause(); }

static void *steady_thread_a(void *unused) { name_thread("steady-a"); steady_wait_a(); return unused; }
static void *steady_thread_b(void *unused) { name_thread("steady-b"); steady_wait_b(); return unused; }

static int cmd_late_answers(int argc, char **argv, char **envp) {
    int ms = arg_ms(argc, argv, 3000);
    pthread_t t;
    pthread_create(&t, 0, late_thread, (void *)"late-0");
    pthread_create(&t, 0, steady_thread_a, 0);
    pthread_create(&t, 0, late_thread, (void *)"late-1");
    pthread_create(&t, 0, steady_thread_b, 0);
    idle_ms(LOOP_IDLE_MS);
    say("spinning on the main thread for %d ms while late-0 and late-1 answer sample requests late", ms);
    victim_recalculate_totals(ms);
    say("main thread responsive again");
    idle_ms(400);
    g_stop_late = 1;
    return 0;
}

// --- setxid broadcasts --------------------------------------------------------------

static volatile int g_stop_setxid;

/// Calls setresuid(-1, -1, -1) in a loop: a no-op for any user, but glibc
/// still sends SIGSETXID to every thread for each call, the watchdog's
/// sample answers included.
__attribute__((noinline)) static void setxid_loop(void) {
    while (!g_stop_setxid)
        if (setresuid((uid_t)-1, (uid_t)-1, (uid_t)-1) != 0) { say("setresuid: %s", strerror(errno)); return; }
}

static void *setxid_thread(void *unused) {
    name_thread("setxid-loop");
    setxid_loop();
    return unused;
}

static int cmd_spin_while_setxid(int argc, char **argv, char **envp) {
    int ms = arg_ms(argc, argv, 3000);
    idle_ms(LOOP_IDLE_MS);
    pthread_t t;
    pthread_create(&t, 0, setxid_thread, 0);
    say("spinning on the main thread for %d ms while thread setxid-loop calls setresuid(-1, -1, -1)", ms);
    victim_recalculate_totals(ms);
    say("main thread responsive again");
    idle_ms(400);
    g_stop_setxid = 1;
    pthread_join(t, 0);
    return 0;
}

static int cmd_spin_not_dumpable(int argc, char **argv, char **envp) {
    // What a program holding secrets does (ssh-agent, gpg-agent, a setuid
    // program dropping root): its /proc/self files become root's, and the
    // mode 0400 ones (task/N/syscall) can no longer be opened by it. Run as
    // root, the victim first becomes nobody, leaving its report directory
    // writable for it; a change of uid makes a process non-dumpable too.
    if (geteuid() == 0) {
        const char *dir = getenv("FAULTLINE_REPORT_DIR");
        if (dir) chmod(dir, 0777);
        if (setgid(65534) != 0 || setuid(65534) != 0) { say("cannot become nobody: %s", strerror(errno)); return 3; }
    }
    prctl(PR_SET_DUMPABLE, 0);
    int ms = arg_ms(argc, argv, 3000);
    idle_ms(LOOP_IDLE_MS);
    say("not dumpable (uid %d); spinning on the main thread for %d ms", (int)getuid(), ms);
    victim_recalculate_totals(ms);
    say("main thread responsive again");
    idle_ms(400);
    return 0;
}

/// spin-recover in a root daemon that has become nobody for a while
/// (seteuid; real and saved uid 0): glibc gives every thread, the
/// watchdog included, the new ids, and the report directory is root's.
/// Then every thread must still have main's ids: the watchdog gave back
/// the filesystem ids it wrote its reports at.
static int cmd_spin_as_nobody(int argc, char **argv, char **envp) {
    if (victim_become_nobody("temporary") != 0) return 3;
    int rc = cmd_spin_recover(argc, argv, envp);
    return rc ? rc : victim_threads_have_main_ids() != 0;
}

/// Sleeps the whole time even when a signal interrupts it (as careful code does).
__attribute__((noinline)) static void victim_sleep_on_main(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

static int cmd_sleep_main(int argc, char **argv, char **envp) {
    int ms = arg_ms(argc, argv, 3000);
    idle_ms(LOOP_IDLE_MS);
    say("sleeping on the main thread for %d ms (started at %llu unix ms)", ms, (unsigned long long)wall_ms());
    victim_sleep_on_main(ms);
    say("main thread awake again");
    idle_ms(400);
    return 0;
}

/// Polls a flag with 1 ms sleeps: never blocked long in one call, but the
/// loop does not come back to its heartbeat until the flag is set.
__attribute__((noinline)) static void victim_wait_until_ready(uint64_t ready_at_ms) {
    while (now_ms() < ready_at_ms) usleep(1000);
}

static int cmd_heartbeat_stall(int argc, char **argv, char **envp) {
    int ms = arg_ms(argc, argv, 3000);
    uint64_t end = now_ms() + 500;
    while (now_ms() < end) {
        heartbeat();
        idle_ms(10);
    }
    say("heartbeat loop stalls for %d ms in a 1 ms sleep loop", ms);
    victim_wait_until_ready(now_ms() + (uint64_t)ms);
    say("heartbeat loop running again");
    end = now_ms() + 400;
    while (now_ms() < end) {
        heartbeat();
        idle_ms(10);
    }
    return 0;
}

// --- deadlocks ----------------------------------------------------------------------

/// Two threads both holding their first lock before taking the second.
static pthread_barrier_t g_barrier;
static pthread_mutex_t g_lock_a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_lock_b = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_lock_c = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) static void victim_lock_second(pthread_mutex_t *first, pthread_mutex_t *second) {
    pthread_mutex_lock(first);
    pthread_barrier_wait(&g_barrier);
    pthread_mutex_lock(second);  // never returns: the other thread holds it
    pthread_mutex_unlock(second);
    pthread_mutex_unlock(first);
}

struct lock_pair { const char *name; pthread_mutex_t *first, *second; };

static void *lock_worker(void *arg) {
    struct lock_pair *p = arg;
    name_thread(p->name);
    victim_lock_second(p->first, p->second);
    return 0;
}

__attribute__((noinline)) static void victim_transfer_main(void) { victim_lock_second(&g_lock_a, &g_lock_b); }

static int cmd_abba(int argc, char **argv, char **envp) {
    pthread_barrier_init(&g_barrier, 0, 2);
    static struct lock_pair worker = {"abba-worker", &g_lock_b, &g_lock_a};
    pthread_t t;
    pthread_create(&t, 0, lock_worker, &worker);
    say("main locks A then B, abba-worker locks B then A (A=%p B=%p)", (void *)&g_lock_a, (void *)&g_lock_b);
    victim_transfer_main();
    say("the deadlock did not happen");
    return 1;
}

static int cmd_cycle3(int argc, char **argv, char **envp) {
    pthread_barrier_init(&g_barrier, 0, 3);
    static struct lock_pair w1 = {"cycle-worker-1", &g_lock_b, &g_lock_c};
    static struct lock_pair w2 = {"cycle-worker-2", &g_lock_c, &g_lock_a};
    pthread_t t1, t2;
    pthread_create(&t1, 0, lock_worker, &w1);
    pthread_create(&t2, 0, lock_worker, &w2);
    say("main: A then B; cycle-worker-1: B then C; cycle-worker-2: C then A (A=%p B=%p C=%p)",
        (void *)&g_lock_a, (void *)&g_lock_b, (void *)&g_lock_c);
    victim_transfer_main();
    say("the deadlock did not happen");
    return 1;
}

__attribute__((noinline)) static void victim_relock(pthread_mutex_t *m) {
    pthread_mutex_lock(m);
    pthread_mutex_lock(m);  // a default mutex is not recursive: waits for itself
}

static int cmd_relock(int argc, char **argv, char **envp) {
    static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    idle_ms(200);
    say("locking the default (non-recursive) mutex %p twice on the main thread", (void *)&m);
    victim_relock(&m);
    say("the deadlock did not happen");
    return 1;
}

static pthread_mutex_t g_handed_over = PTHREAD_MUTEX_INITIALIZER;

static void *unlock_later(void *arg) {
    idle_ms(300);
    pthread_mutex_unlock(&g_handed_over);  // another thread's lock: glibc allows it for a default mutex
    return arg;
}

static int cmd_relock_handed_over(int argc, char **argv, char **envp) {
    pthread_mutex_lock(&g_handed_over);
    pthread_t t;
    if (pthread_create(&t, 0, unlock_later, 0) != 0) return 2;
    say("main locks the default mutex again; another thread unlocks it in 300 ms");
    pthread_mutex_lock(&g_handed_over);
    pthread_join(t, 0);
    say("main took the mutex the other thread unlocked");
    return 0;
}

static void *orphan_worker(void *arg) {
    name_thread("lock-leaker");
    pthread_mutex_lock(arg);  // and exits without unlocking
    return 0;
}

__attribute__((noinline)) static void victim_wait_for_orphaned_lock(pthread_mutex_t *m) { pthread_mutex_lock(m); }

static int cmd_orphaned_lock(int argc, char **argv, char **envp) {
    static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_t t;
    pthread_create(&t, 0, orphan_worker, &m);
    pthread_join(t, 0);
    idle_ms(200);
    say("lock-leaker exited holding %p; the main thread now locks it", (void *)&m);
    victim_wait_for_orphaned_lock(&m);
    say("the deadlock did not happen");
    return 1;
}

static void *join_cycle_worker(void *arg) {
    name_thread("join-worker");
    pthread_mutex_lock(arg);  // held by main, which is joining us
    pthread_mutex_unlock(arg);
    return 0;
}

__attribute__((noinline)) static void victim_join_while_locked(pthread_mutex_t *m) {
    pthread_mutex_lock(m);
    pthread_t t;
    pthread_create(&t, 0, join_cycle_worker, m);
    pthread_join(t, 0);
}

static int cmd_join_cycle(int argc, char **argv, char **envp) {
    static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    idle_ms(200);
    say("main holds %p and joins join-worker, which waits for it", (void *)&m);
    victim_join_while_locked(&m);
    say("the deadlock did not happen");
    return 1;
}

// --- a deadlock after the main thread has gone -------------------------------------

/// hb-worker: heartbeats (so it is the watched thread) until the main thread
/// has ended with pthread_exit, then takes A and waits for B.
static void *main_gone_heartbeat_worker(void *arg) {
    name_thread("hb-worker");
    for (int i = 0; i < 20; i++) {
        heartbeat();
        idle_ms(10);
    }
    if (!victim_main_thread_gone()) say("the main thread did not end within 5 s");
    say("main thread gone; hb-worker locks A then B, lock-worker B then A");
    victim_lock_second(&g_lock_a, &g_lock_b);
    return 0;
}

/// Two workers deadlock on each other after main has called pthread_exit:
/// the locks must be read through a live thread (the leader has no memory).
static int cmd_main_gone_deadlock(int argc, char **argv, char **envp) {
    pthread_barrier_init(&g_barrier, 0, 2);
    static struct lock_pair worker = {"lock-worker", &g_lock_b, &g_lock_a};
    pthread_t t1, t2;
    pthread_create(&t1, 0, main_gone_heartbeat_worker, 0);
    pthread_create(&t2, 0, lock_worker, &worker);
    say("main leaves with pthread_exit (A=%p B=%p)", (void *)&g_lock_a, (void *)&g_lock_b);
    pthread_exit(0);
}

// --- rwlocks ----------------------------------------------------------------------

static pthread_rwlock_t g_rwlock = PTHREAD_RWLOCK_INITIALIZER;

static void *rwlock_cycle_worker(void *arg) {
    name_thread("rw-worker");
    pthread_rwlock_wrlock(&g_rwlock);
    pthread_barrier_wait(&g_barrier);
    pthread_mutex_lock(arg);  // held by main, which waits to write the rwlock we hold
    return 0;
}

// A writer waits on the rwlock's writers_futex, a reader (rwlock-held) on
// its wrphase_futex: the two scenarios cover both words.
__attribute__((noinline)) static void victim_write_while_locked(pthread_mutex_t *m) {
    pthread_mutex_lock(m);
    pthread_barrier_wait(&g_barrier);
    pthread_rwlock_wrlock(&g_rwlock);  // never returns: rw-worker writes and waits for m
}

static int cmd_rwlock_cycle(int argc, char **argv, char **envp) {
    static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_barrier_init(&g_barrier, 0, 2);
    pthread_t t;
    pthread_create(&t, 0, rwlock_cycle_worker, &m);
    say("main holds mutex %p and waits to write rwlock %p; rw-worker writes the rwlock and waits for the mutex",
        (void *)&m, (void *)&g_rwlock);
    victim_write_while_locked(&m);
    say("the deadlock did not happen");
    return 1;
}

static void *rwlock_sleeper(void *arg) {
    name_thread("rw-writer");
    pthread_rwlock_wrlock(&g_rwlock);
    pthread_barrier_wait(&g_barrier);
    for (;;) pause();  // holds the write lock for ever, blocked outside any futex
    return 0;
}

__attribute__((noinline)) static void victim_wait_to_read(void) { pthread_rwlock_rdlock(&g_rwlock); }

static int cmd_rwlock_held(int argc, char **argv, char **envp) {
    pthread_barrier_init(&g_barrier, 0, 2);
    pthread_t t;
    pthread_create(&t, 0, rwlock_sleeper, 0);
    pthread_barrier_wait(&g_barrier);
    say("rw-writer holds rwlock %p for writing and sleeps; the main thread now reads it", (void *)&g_rwlock);
    victim_wait_to_read();
    say("the hang did not happen");
    return 1;
}

// --- no false alarms ----------------------------------------------------------------

/// One unit of work: about `ms` of CPU.
__attribute__((noinline)) static void victim_work_item(int ms) { victim_spin(now_ms() + (uint64_t)ms); }

static int cmd_busy_responsive(int argc, char **argv, char **envp) {
    int ms = arg_ms(argc, argv, 4000);
    say("event loop: 30 ms work items, back to poll between them, for %d ms", ms);
    uint64_t end = now_ms() + (uint64_t)ms;
    while (now_ms() < end) {
        victim_work_item(30);
        idle_ms(2);  // the loop's poll: the thread is responsive here
    }
    say("done");
    return 0;
}

static int cmd_busy_heartbeat(int argc, char **argv, char **envp) {
    int ms = arg_ms(argc, argv, 4000);
    say("event loop at 100%% CPU: 40 ms work items with a heartbeat between them, for %d ms", ms);
    uint64_t end = now_ms() + (uint64_t)ms;
    while (now_ms() < end) {
        heartbeat();
        victim_work_item(40);
    }
    say("done");
    return 0;
}

static int cmd_stop_cont(int argc, char **argv, char **envp) {
    int ms = arg_ms(argc, argv, 3000);
    pid_t parent = getpid();
    pid_t child = fork();
    if (child == 0) {
        usleep(500 * 1000);
        kill(parent, SIGSTOP);
        usleep((useconds_t)ms * 1000);
        kill(parent, SIGCONT);
        _exit(0);
    }
    say("heartbeat loop; a child stops this process for %d ms after 500 ms", ms);
    uint64_t end = now_ms() + 500 + (uint64_t)ms + 1500;
    while (now_ms() < end) {
        heartbeat();
        victim_work_item(5);
        idle_ms(5);
    }
    int status;
    waitpid(child, &status, 0);
    say("done");
    return 0;
}

static int cmd_under_tracer(int argc, char **argv, char **envp) {
    int ms = arg_ms(argc, argv, 3000);
    int ready[2];
    if (pipe(ready) != 0) return 2;
    pid_t parent = getpid();
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);  // Yama: let the child trace us
    pid_t child = fork();
    if (child == 0) {
        // A minimal debugger: attach, then pass every signal through until the tracee exits.
        if (ptrace(PTRACE_SEIZE, parent, 0, (void *)(long)PTRACE_O_EXITKILL) != 0) {
            perror("victim: PTRACE_SEIZE");
            _exit(2);
        }
        if (write(ready[1], "x", 1) != 1) _exit(2);
        for (;;) {
            int status;
            if (waitpid(parent, &status, __WALL) < 0 || WIFEXITED(status) || WIFSIGNALED(status)) _exit(0);
            int sig = WIFSTOPPED(status) ? WSTOPSIG(status) : 0;
            if (status >> 16) sig = 0;  // a ptrace event stop, not a signal
            ptrace(PTRACE_CONT, parent, 0, (void *)(long)sig);
        }
    }
    char c;
    if (read(ready[0], &c, 1) != 1) { say("the tracer did not attach"); return 2; }
    idle_ms(LOOP_IDLE_MS);  // wait for events first, as an event loop does: inferred mode watches main from then on
    say("traced by pid %d; spinning on the main thread for %d ms", (int)child, ms);
    victim_recalculate_totals(ms);
    say("done");
    return 0;
}

static int cmd_under_gdb(int argc, char **argv, char **envp) {
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return 2;
    self[n] = 0;
    const char *ms = argc > 2 ? argv[2] : "3000";
    say("running 'spin-recover %s' under gdb", ms);
    // gdb runs as a child and its exit status becomes ours.
    pid_t child = fork();
    if (child == 0) {
        // The agent watches the program gdb runs, not gdb: preloaded into
        // gdb too, it reported gdb's own busy main thread (symbol loading
        // takes over 2 s on a loaded machine) as a hang.
        static char set_env[8192] = "set environment LD_PRELOAD=";
        const char *preload = getenv("LD_PRELOAD");
        if (preload) {
            strncat(set_env, preload, sizeof set_env - strlen(set_env) - 1);
            unsetenv("LD_PRELOAD");
        }
        execlp("gdb", "gdb", "-nx", "-batch", "-ex", preload ? set_env : "echo", "-ex", "run", "--args", self, "spin-recover", ms, (char *)0);
        say("cannot run gdb: %s", strerror(errno));
        _exit(77);
    }
    int status;
    if (child < 0 || waitpid(child, &status, 0) != child) return 2;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// --- dispatch -------------------------------------------------------------------------

static const victim_case k_cases[] = {
    VICTIM_RUN("spin-recover", cmd_spin_recover,
               "[MS] main thread burns the CPU for MS (3000) ms, then recovers"),
    VICTIM_RUN("spin-while-setxid", cmd_spin_while_setxid,
               "[MS] as spin-recover, while thread 'setxid-loop' calls setresuid(-1, -1, -1) in a loop (glibc's SIGSETXID to every thread at each call)"),
    VICTIM_RUN("spin-not-dumpable", cmd_spin_not_dumpable,
               "[MS] as spin-recover, in a process that made itself non-dumpable (as nobody)"),
    VICTIM_RUN("spin-as-nobody", cmd_spin_as_nobody,
               "[MS] as root: become uid and gid 65534 by setegid and seteuid (real and saved ids stay 0), then as spin-recover; exit 1 unless every thread then has main's ids"),
    VICTIM_RUN("spin-out-of-fds", cmd_spin_out_of_fds,
               "[MS] as spin-recover, after opening /dev/null until no fd is left (EMFILE)"),
    VICTIM_RUN("spin-after-namespaces", cmd_spin_after_namespaces,
               "[MS] as root: setns into a helper's mount and user namespaces, unshare(CLONE_NEWUSER), setns into a new time namespace, then as spin-recover"),
    VICTIM_RUN("spin-beside-interruptible-reader", cmd_spin_beside_interruptible_reader,
               "[MS] as spin-recover, with a handler on SIGRTMIN+8 that siginterrupt makes interrupt calls, while thread 'reader' blocks in read() on a pipe until main is responsive; exit 3 if that read failed"),
    VICTIM_RUN("spin-small-altstack", cmd_spin_small_altstack,
               "[MS] as spin-recover, with an 8 KiB alternate signal stack installed by the program on main"),
    VICTIM_RUN("batch", cmd_batch,
               "[MS] a batch program: main computes MS (2500) ms, then sleeps MS ms, never waiting for events (no hang expected)"),
    VICTIM_RUN("epoll-spin", cmd_epoll_spin,
               "[MS] idles in epoll_wait on an eventfd and a pipe, then spins MS (3000) ms and recovers"),
    VICTIM_RUN("child-pipes", cmd_child_pipes_then_spin,
               "[MS] polls a child's stdout/stderr pipes until they close (as subprocess.run does), then computes MS (2500) ms (no hang expected)"),
    VICTIM_RUN("write-slow-pipe", victim_cmd_write_slow_pipe,
               "[MS] idles in poll on an eventfd, then writes 1 MiB into a pipe a child starts reading after MS (3000) ms (no hang expected)"),
    VICTIM_RUN("select-once-then-sleep", victim_cmd_select_once_then_sleep,
               "[MS] one select and one poll on a socket pair, computes MS (1000) ms, sleeps 1.2 s (no hang expected)"),
    VICTIM_RUN("fuzz-compute", victim_cmd_fuzz_compute,
               "[MS] two polls on an eventfd, then computes MS (4600) ms on main (no hang expected)"),
    VICTIM_RUN("select-loop-spin", victim_cmd_select_loop_spin,
               "[MS] a loop of 20 ms selects on a socket pair for 1 s, then a handler spins MS (3000) ms"),
    VICTIM_RUN("select-sleep", cmd_select_sleep_then_spin,
               "[MS] sleeps in select and poll on no descriptor, then computes MS (2500) ms (no hang expected)"),
    VICTIM_RUN("spin-holding-loader-lock", cmd_spin_holding_loader_lock,
               "[MS] as spin-recover, while thread 'lock-holder' sits inside a dl_iterate_phdr callback for ever (holding the dynamic linker's lock)"),
    VICTIM_RUN("late-answers", cmd_late_answers,
               "[MS] as spin-recover, while threads late-0 and late-1 sit in vfork 70 ms at a time (they answer sample requests after the requester gave up) and steady-a and steady-b wait in pause"),
    VICTIM_RUN("late-answer-elsewhere", victim_cmd_late_answer_elsewhere,
               "[MS] as spin-recover, while late-0 answers each stack request 60 ms late (the next one open) and slow-1 never"),
    VICTIM_RUN("spin-in-startup-masks", victim_cmd_spin_in_startup_masks,
               "[MS] main thread spins MS (3000) ms, until the stack request in glibc's start-up mask (every signal blocked), while start-asleep and start-running hold that mask until theirs"),
    VICTIM_RUN("spin-beside-stalled-starts", victim_cmd_spin_beside_stalled_starts,
               "[MS] main thread spins MS (3000) ms while stall-0 to stall-3 hold glibc's start-up mask and run 1.5 s once their stack request is pending"),
    VICTIM_RUN("cut-stacks", victim_cmd_cut_stacks,
               "[MS] main thread spins MS (3000) ms, two thirds of its CPU in a loop no unwinder can step out of"),
    VICTIM_RUN("sleep-main", cmd_sleep_main,
               "[MS] main thread sleeps MS (3000) ms in nanosleep"),
    VICTIM_RUN("heartbeat-stall", cmd_heartbeat_stall,
               "[MS] heartbeat loop stuck MS (3000) ms in a loop of 1 ms sleeps"),
    VICTIM_RUN("abba", cmd_abba,
               "main and abba-worker lock A/B in opposite orders"),
    VICTIM_RUN("cycle3", cmd_cycle3,
               "main, cycle-worker-1 and cycle-worker-2 in a three-lock cycle"),
    VICTIM_RUN("timed-cycle", victim_cmd_timed_cycle,
               "main and timed-worker lock two mutexes in opposite orders with timed waits; main gives up after 1 s (no deadlock expected)"),
    VICTIM_RUN("relock", cmd_relock,
               "main locks a default mutex twice"),
    VICTIM_RUN("relock-handed-over", cmd_relock_handed_over,
               "main locks a default mutex twice and another thread unlocks it after 300 ms, as a semaphore (no deadlock expected)"),
    VICTIM_RUN("orphaned-lock", cmd_orphaned_lock,
               "main waits for a mutex whose owner exited"),
    VICTIM_RUN("join-cycle", cmd_join_cycle,
               "main joins a worker that waits for main's lock"),
    VICTIM_RUN("main-gone-deadlock", cmd_main_gone_deadlock,
               "main calls pthread_exit; hb-worker (heartbeats) and lock-worker lock A/B in opposite orders"),
    VICTIM_RUN("rwlock-cycle", cmd_rwlock_cycle,
               "main waits to write an rwlock rw-worker writes; rw-worker waits for main's mutex"),
    VICTIM_RUN("rwlock-held", cmd_rwlock_held,
               "main reads an rwlock that rw-writer holds for writing while it sleeps"),
    VICTIM_RUN("busy-responsive", cmd_busy_responsive,
               "[MS] 30 ms work items with poll between them"),
    VICTIM_RUN("busy-short-polls", victim_cmd_busy_short_polls,
               "[MS] 30 ms work items with 0.2 ms waits in poll between them (a timerfd)"),
    VICTIM_RUN("busy-heartbeat", cmd_busy_heartbeat,
               "[MS] 100% CPU loop with a heartbeat every 40 ms"),
    VICTIM_RUN("stop-cont", cmd_stop_cont,
               "[MS] heartbeat loop stopped (SIGSTOP) for MS ms, then continued"),
    VICTIM_RUN("under-tracer", cmd_under_tracer,
               "[MS] spin MS ms while a ptrace tracer is attached"),
    VICTIM_RUN("under-gdb", cmd_under_gdb,
               "[MS] spin-recover under gdb -batch"),
};

int main(int argc, char **argv, char **envp) {
    setvbuf(stderr, 0, _IONBF, 0);
    return VICTIM_MAIN("victim-hang", k_cases, argc, argv, envp);
}
