// victim-c: one deliberate fault per subcommand, for the scenario suite.
// Each fault happens in a named, non-inlined function so scenarios can
// expect that function in the report's frames. This program does not link
// the agent: it is the "unmodified binary" that `faultline exec` injects into.
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "victim_cases.h"
#include "victim_fds.h"
#include "victim_namespaces.h"

#define NOINLINE __attribute__((noinline))

void victim_dup2_churn(void);  // fd_churn.c
void victim_unwinds_at_once(void);  // unwinds_at_once.c
void victim_unwinds_at_once_mixed(void);
void victim_crash_holding_loader_lock(void);  // loader_lock.c
void victim_crash_inside_loader_callback(void);  // loader_lock.c
void victim_crash_with_blocking_callback(void);  // blocking_callback.c
void victim_namespaces_leave_threads(void);
int victim_privilege_drop(const char *mode);  // privilege_drop.c
int victim_setid_loader_locked(void);  // setid_loader_locked.c
void victim_crash_as_nobody(const char *how);  // temporary_euid.c
int victim_exec_as_nobody(char **argv);  // exec_after_drop.c
int victim_refused_siblings(char **args);  // exec_after_drop.c
int victim_truncated_mapping(const char *how);  // truncated_mapping.c
int victim_interposer_results(void);  // interposer_results.c
void victim_crash_beside_rt_handlers(void);  // rt_handlers.c
void victim_crash_beside_signal_api(const char *api);  // rt_handlers.c
int victim_sample_signal_oneshot(const char *how);  // sample_signal_action.c
int victim_sample_signal_mask(const char *how);  // sample_signal_action.c
int victim_sample_signal_default(const char *how);  // sample_signal_action.c
int victim_sample_signal_sigwait(void);  // sample_signal_action.c
void victim_crash_while_cancelled(void);  // crash_while_cancelled.c
void victim_crash_beside_cancelled(void);  // crash_while_cancelled.c
int victim_calls_while_cancelled(void);  // crash_while_cancelled.c
void victim_crash_beside_starting_threads(void);  // starting_threads.c
void victim_crash_beside_stalled_starts(void);  // starting_threads.c
void victim_crash_beside_slow_answer(void);  // slow_answer.c
int victim_crash_beside_crowd(const char *kind, const char *count);  // thread_crowd.c
void victim_rename_tasks_then_crash(void);  // renamed_tasks.c
void victim_crash_in_anonymous_code(void);  // foreign_code.c
void victim_crash_in_copied_code(void);  // foreign_code.c
int victim_late_cxx_uncaught(void);  // late_cxx.c
void victim_reraise_from_handler(int with_siginfo, int on_altstack, const char *put_back);  // reraising_handler.c
void victim_raise_segv(void);  // reraising_handler.c
void victim_fault_in_signal_handler(void);  // reraising_handler.c

// Keeps the optimiser from proving a fault away.
static volatile int g_zero = 0;
static int *volatile g_null = NULL;

NOINLINE void victim_null_deref(void) {
    fprintf(stderr, "victim: dereferencing NULL\n");
    *g_null = 42;  // [null-deref store]
}

NOINLINE void victim_wild_pointer(void) {
    fprintf(stderr, "victim: writing through a wild pointer\n");
    *(volatile int *)(uintptr_t)0xdeadbeef000ull = 1;
}

NOINLINE void victim_bus_error(void) {
    // A mapping longer than its file: touching the page past EOF is SIGBUS.
    char path[] = "/tmp/victim-bus-XXXXXX";
    int fd = mkstemp(path);
    unlink(path);
    if (fd < 0 || ftruncate(fd, 16) != 0) { perror("victim"); exit(2); }
    long page = sysconf(_SC_PAGESIZE);
    volatile char *p = mmap(0, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    fprintf(stderr, "victim: touching a mapping past the end of its file\n");
    p[page] = 1;
}

NOINLINE void victim_illegal_instruction(void) {
    fprintf(stderr, "victim: executing ud2\n");
    __builtin_trap();
}

NOINLINE int victim_divide_by_zero(int a) {
    fprintf(stderr, "victim: integer division by zero\n");
    return a / g_zero;
}

NOINLINE void victim_abort(void) {
    fprintf(stderr, "victim: calling abort()\n");
    abort();
}

NOINLINE void victim_trap(void) {
    fprintf(stderr, "victim: breakpoint trap\n");
    __asm__ volatile("int3");
    fprintf(stderr, "victim: survived the trap\n");
}

NOINLINE void victim_seccomp_trap(void) {
    // A seccomp filter that traps getpriority (a syscall no crash handler
    // needs): the kernel sends SIGSYS.
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getpriority, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = { .len = sizeof filter / sizeof filter[0], .filter = filter };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
        perror("victim: seccomp"); exit(2);
    }
    fprintf(stderr, "victim: calling a syscall seccomp traps\n");
    syscall(SYS_getpriority, 0, 0);
}

NOINLINE int victim_recurse(int depth) {
    volatile char pad[512];
    pad[0] = (char)depth;
    return victim_recurse(depth + 1) + pad[0];
}

static void *overflow_thread(void *arg) {
    // Named by the thread itself: naming from the creator races the fault.
    pthread_setname_np(pthread_self(), "overflower");
    fprintf(stderr, "victim: overflowing the stack of a thread\n");
    victim_recurse(0);
    return arg;
}

static void *crash_thread(void *arg) {
    pthread_setname_np(pthread_self(), "worker-7");
    fprintf(stderr, "victim: crashing on a worker thread\n");
    victim_null_deref();
    return arg;
}

static void *blocked_crash_thread(void *arg) {
    // Process signals are for the main thread: this worker blocks them all,
    // as thread pools do.
    pthread_setname_np(pthread_self(), "blocker");
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, 0);
    fprintf(stderr, "victim: crashing on a thread that blocks every signal\n");
    victim_null_deref();
    return arg;
}

static void run_thread(void *(*fn)(void *)) {
    pthread_t t;
    pthread_create(&t, 0, fn, 0);
    pthread_join(t, 0);
}

static pthread_barrier_t g_barrier;

NOINLINE static void *simultaneous_crash(void *arg) {
    pthread_barrier_wait(&g_barrier);
    *g_null = (int)(intptr_t)arg;
    return arg;
}

NOINLINE void victim_two_threads_crash(void) {
    pthread_t a, b;
    pthread_barrier_init(&g_barrier, 0, 3);
    fprintf(stderr, "victim: two threads crash at once\n");
    pthread_create(&a, 0, simultaneous_crash, (void *)1);
    pthread_create(&b, 0, simultaneous_crash, (void *)2);
    pthread_setname_np(a, "crasher-a");
    pthread_setname_np(b, "crasher-b");
    pthread_barrier_wait(&g_barrier);
    pthread_join(a, 0);
    pthread_join(b, 0);
}

// Registered as the agent's crash callback: faults while the report is
// being written, which must still yield a (minimal) report.
NOINLINE static void faulting_callback(void *writer, void *ctx) {
    *g_null = 7;
}

NOINLINE void victim_crash_in_handler(void) {
    typedef void (*set_cb_fn)(void (*)(void *, void *), void *);
    set_cb_fn set_cb = (set_cb_fn)dlsym(RTLD_DEFAULT, "faultline_set_crash_callback");
    if (!set_cb) { fprintf(stderr, "victim: no agent loaded; nothing to crash inside\n"); exit(3); }
    set_cb(faulting_callback, 0);
    fprintf(stderr, "victim: crashing with a crash callback that faults\n");
    victim_null_deref();
}

static pthread_barrier_t g_named;
static const char *g_idler_prefix;

static void *idle_thread(void *arg) {
    char name[16];
    snprintf(name, sizeof name, "%s-%d", g_idler_prefix, (int)(intptr_t)arg);
    pthread_setname_np(pthread_self(), name);
    pthread_barrier_wait(&g_named);
    for (;;) pause();
    return arg;
}

// Starts `n` threads named PREFIX-0… that wait in pause() for good, and
// returns once every one has its name (a sleep was not enough on a loaded
// machine: one thread was still called victim-c). Once per process.
void victim_start_named_idlers(const char *prefix, int n) {
    g_idler_prefix = prefix;
    pthread_barrier_init(&g_named, 0, (unsigned)n + 1);
    for (int i = 0; i < n; i++) {
        pthread_t t;
        pthread_create(&t, 0, idle_thread, (void *)(intptr_t)i);
    }
    pthread_barrier_wait(&g_named);
}

NOINLINE void victim_crash_with_threads(void) {
    // Several idle threads, so the report must carry their stacks too.
    victim_start_named_idlers("idler", 3);
    usleep(20000);  // and, very likely, are in pause()
    victim_null_deref();
}

NOINLINE void victim_crash_with_many_threads(void) {
    // 40 idle threads; a scenario caps the threads listed
    // (FAULTLINE_MAX_THREADS) below that.
    victim_start_named_idlers("idler", 40);
    victim_null_deref();
}

NOINLINE void victim_crash_without_report_dir(void) {
    // The agent holds the directory open; once it is removed, no file can be
    // created in it, and the report must still reach stderr.
    const char *dir = getenv("FAULTLINE_REPORT_DIR");
    if (!dir || rmdir(dir) != 0) { fprintf(stderr, "victim: cannot remove FAULTLINE_REPORT_DIR: %s\n", dir ? strerror(errno) : "not set"); exit(3); }
    fprintf(stderr, "victim: removed %s; dereferencing NULL\n", dir);
    victim_null_deref();
}

NOINLINE void victim_execle_env(void) {
    // execle takes the new environment after the NULL that ends the
    // arguments; env prints it, so the scenario sees whether it arrived.
    char *const envp[] = {"VICTIM_EXECLE=from-execle", NULL};
    fprintf(stderr, "victim: execle /usr/bin/env with one variable\n");
    execle("/usr/bin/env", "env", (char *)NULL, envp);
    fprintf(stderr, "victim: execle failed: %s\n", strerror(errno));
    exit(3);
}

NOINLINE void victim_exec_main_envp(char **envp) {
    // As `capsh --user=` does: grow the environment with setenv, then exec
    // with the envp main() received. glibc reallocs the array it allocated
    // and frees the old one; before the agent kept main's array out of that
    // (environ_pin.h), execve got EFAULT.
    char name[32];
    for (int i = 0; i < 64; i++) {
        snprintf(name, sizeof name, "VICTIM_GROW_%d", i);
        setenv(name, "x", 1);
    }
    fprintf(stderr, "victim: 64 setenv calls, then execve /usr/bin/env with main's envp\n");
    char *args[] = {"env", NULL};
    execve("/usr/bin/env", args, envp);
    fprintf(stderr, "victim: execve with main's envp failed: %s\n", strerror(errno));
    exit(3);
}

NOINLINE void victim_stderr_after_closing_fds(void) {
    // Closes every fd above 2 in the three ways programs do, then writes
    // more than a pipe holds to stderr: it must all reach the real stderr.
    for (int fd = 3; fd < 1024; fd++) close(fd);
    closefrom(3);
    close_range(3, ~0u, 0);
    char line[1024];
    memset(line, '.', sizeof line - 1);
    line[sizeof line - 1] = '\n';
    for (int i = 0; i < 80; i++) (void)!write(2, line, sizeof line);
    fprintf(stderr, "victim: wrote 80 KiB to stderr after closing fds 3 and up\n");
    exit(0);
}

NOINLINE void victim_crash_out_of_fds(void) {
    // A daemon closes every fd it did not open (the agent's reserve must
    // survive that), then leaks fds until open() fails and crashes on the
    // error path; thread 'idler-0' idles, so the report must list the
    // threads (/proc/self/task) as well as read the maps and write its file.
    closefrom(3);
    victim_start_named_idlers("idler", 1);
    int n = victim_use_up_fds();
    fprintf(stderr, "victim: opened %d fds until %s; dereferencing NULL\n", n, errno == EMFILE ? "EMFILE" : "another error");
    victim_null_deref();
}

// The fd whose link names FAULTLINE_REPORT_DIR (the agent's), or -1.
static int report_dir_fd(void) {
    char want[4096], link[64], got[4096];
    const char *dir = getenv("FAULTLINE_REPORT_DIR");
    if (!dir || !realpath(dir, want)) return -1;
    for (int fd = 3; fd < 1024; fd++) {
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, got, sizeof got - 1);
        if (n <= 0) continue;
        got[n] = 0;
        if (!strcmp(got, want)) return fd;
    }
    return -1;
}

NOINLINE void victim_crash_after_closing_fds(void) {
    // What a daemon does at start: close every fd it did not open itself
    // (the agent's close skips its own). Then directories of its own take
    // the lowest numbers, and one the number of the agent's report
    // directory fd, closed with a raw syscall, as by a runtime that makes
    // its system calls itself: that number now names the program's.
    for (int fd = 3; fd < 1024; fd++) close(fd);
    int agents = report_dir_fd();
    if (agents >= 0) syscall(SYS_close, agents);
    for (int i = 0; i < 16; i++) open(".", O_RDONLY | O_DIRECTORY);
    if (agents >= 0) fcntl(3, F_DUPFD, agents);
    fprintf(stderr, "victim: closed fds 3-1023, the report directory's (%d) by syscall, opened '.' 16 times and on that number; dereferencing NULL\n", agents);
    victim_null_deref();
}

NOINLINE void victim_crash_after_dup2_onto_low_fds(void) {
    // What a shell does for `exec 3>log 4>&1 ...` and a launcher before it
    // execs a child with fds at fixed numbers: dup2 onto numbers it chose.
    // They must stay the program's, and stderr and the report still work.
    int null = open("/dev/null", O_RDWR);
    struct stat want, got;
    if (null < 0 || fstat(null, &want) != 0) { perror("victim: /dev/null"); exit(3); }
    for (int fd = 3; fd < 64; fd++)
        if (fd != null && dup2(null, fd) != fd) { fprintf(stderr, "victim: dup2 onto %d: %s\n", fd, strerror(errno)); exit(3); }
    char line[1024];
    memset(line, '.', sizeof line - 1);
    line[sizeof line - 1] = '\n';
    for (int i = 0; i < 80; i++) (void)!write(2, line, sizeof line);
    // Let the agent's capture forward those 80 KiB before the crash: it
    // waits only 50 ms at a crash, and a loaded machine needs longer.
    // FIONREAD on a pipe (fd 2 under capture) says what is still in it.
    int queued = 0;
    for (int i = 0; i < 5000 && ioctl(2, FIONREAD, &queued) == 0 && queued > 0; i++) usleep(1000);
    for (int fd = 3; fd < 64; fd++)
        if (fstat(fd, &got) != 0 || got.st_ino != want.st_ino || got.st_dev != want.st_dev) {
            fprintf(stderr, "victim: fd %d is no longer the /dev/null put there\n", fd);
            exit(3);
        }
    // The number of the real stderr the agent forwards to (its stderr
    // capture leaves it in the environment for an exec'd image).
    const char *agent_fd = getenv("FAULTLINE_STDERR_FD");
    if (agent_fd) {
        int r = dup2(null, atoi(agent_fd));
        fprintf(stderr, "victim: dup2 onto the agent's stderr fd: %s\n", r < 0 ? strerror(errno) : "replaced it");
    }
    fprintf(stderr, "victim: fds 3-63 are /dev/null, as put there; wrote 80 KiB to stderr; dereferencing NULL\n");
    victim_null_deref();
}

// --- small alternate signal stacks -----------------------------------------
// Many programs and libraries still give a thread an alternate signal stack
// of the old SIGSTKSZ, 8 KiB, after the agent has given it its own: theirs
// is then the one in force when a fatal signal arrives.

/// The historical SIGSTKSZ. glibc's SIGSTKSZ is sysconf(_SC_SIGSTKSZ) under
/// _GNU_SOURCE, so the literal is spelled out.
#define OLD_SIGSTKSZ 8192

static size_t g_small_altstack_size = OLD_SIGSTKSZ;

// Installs a program-owned alternate stack of g_small_altstack_size on the
// calling thread. mmap'd with a guard page below: a handler that outgrows it
// faults at once instead of silently corrupting whatever lies beneath.
static void install_small_altstack(void) {
    long page = sysconf(_SC_PAGESIZE);
    size_t size = (g_small_altstack_size + (size_t)page - 1) & ~((size_t)page - 1);
    char *p = mmap(0, size + (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED || mprotect(p, (size_t)page, PROT_NONE) != 0) { perror("victim: mmap"); exit(2); }
    // The stack's top end is at the top of the mapping, as a malloc'd one of
    // that size would be.
    stack_t ss = { .ss_sp = p + (size_t)page + size - g_small_altstack_size, .ss_size = g_small_altstack_size, .ss_flags = 0 };
    if (sigaltstack(&ss, 0) != 0) { perror("victim: sigaltstack"); exit(2); }
}

enum small_altstack_fault { SMALL_ALT_NULL_DEREF, SMALL_ALT_OVERFLOW, SMALL_ALT_IDLE };

static pthread_barrier_t g_small_alt_ready;

static void *small_altstack_thread(void *arg) {
    pthread_setname_np(pthread_self(), "small-alt");
    install_small_altstack();
    pthread_barrier_wait(&g_small_alt_ready);
    switch ((enum small_altstack_fault)(intptr_t)arg) {
    case SMALL_ALT_NULL_DEREF:
        fprintf(stderr, "victim: crashing on a worker thread with an alternate stack of %zu bytes\n", g_small_altstack_size);
        victim_null_deref();
        break;
    case SMALL_ALT_OVERFLOW:
        fprintf(stderr, "victim: overflowing the stack of a worker thread with an alternate stack of %zu bytes\n", g_small_altstack_size);
        victim_recurse(0);
        break;
    case SMALL_ALT_IDLE:
        for (;;) pause();
    }
    return arg;
}

// The main thread and a worker ('small-alt') each install a small alternate
// stack (`size_arg` bytes, default 8 KiB). Then the worker does `worker`,
// and the main thread crashes too when `main_crashes` (the worker idles).
NOINLINE void victim_small_altstack(const char *size_arg, enum small_altstack_fault worker, int main_crashes) {
    if (size_arg) g_small_altstack_size = (size_t)strtoul(size_arg, 0, 0);
    install_small_altstack();
    pthread_barrier_init(&g_small_alt_ready, 0, 2);
    pthread_t t;
    pthread_create(&t, 0, small_altstack_thread, (void *)(intptr_t)worker);
    pthread_barrier_wait(&g_small_alt_ready);
    if (main_crashes) {
        fprintf(stderr, "victim: crashing on the main thread with an alternate stack of %zu bytes\n", g_small_altstack_size);
        victim_null_deref();
    }
    pthread_join(t, 0);
}

// unshare -r and nsenter's calls (victim_namespaces.h), then a NULL store
// on main. Faultline stops its threads around them and starts them again;
// the crash must still be reported, with the restarted threads listed.
NOINLINE void victim_crash_after_namespaces(const char *mode) {
    int threaded = mode && !strcmp(mode, "threaded");
    int failed = victim_enter_namespaces(threaded);
    fprintf(stderr, "victim: %d namespace step(s) failed\n", failed);
    victim_null_deref();
}

// crash-in-handler on a main thread with a small alternate stack of its own:
// the fault in the crash callback re-enters the handler on that stack.
NOINLINE void victim_small_altstack_crash_in_handler(const char *size_arg) {
    if (size_arg) g_small_altstack_size = (size_t)strtoul(size_arg, 0, 0);
    install_small_altstack();
    victim_crash_in_handler();
}

// Cases that read arguments or return a status.
static int case_divide_by_zero(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    return victim_divide_by_zero(argc);
}

static int case_stack_overflow(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    fprintf(stderr, "victim: overflowing the main stack\n");
    return victim_recurse(0);
}

static int case_thread_stack_overflow(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    run_thread(overflow_thread);
    return victim_fault_missed();
}

static int case_thread_crash(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    run_thread(crash_thread);
    return victim_fault_missed();
}

static int case_blocked_thread_crash(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    run_thread(blocked_crash_thread);
    return victim_fault_missed();
}

static int case_reraise_from_handler(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    int with_siginfo = 0, on_altstack = 0;
    const char *put_back = "replaced";
    for (int i = 2; i < argc; i++) {
        with_siginfo |= !strcmp(argv[i], "siginfo"), on_altstack |= !strcmp(argv[i], "altstack");
        if (!strcmp(argv[i], "default") || !strcmp(argv[i], "default-signal")) put_back = argv[i];
    }
    victim_reraise_from_handler(with_siginfo, on_altstack, put_back);
    return victim_fault_missed();
}

static int case_crash_beside_crowd(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    return victim_crash_beside_crowd(argv[2], argc > 3 ? argv[3] : 0);
}

static int case_crash_beside_signal_api(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    victim_crash_beside_signal_api(argv[2]);
    return victim_fault_missed();
}

static int case_sample_signal_oneshot(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    return victim_sample_signal_oneshot(argv[2]);
}

static int case_sample_signal_mask(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    return victim_sample_signal_mask(argv[2]);
}

static int case_sample_signal_default(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    return victim_sample_signal_default(argv[2]);
}

static int case_sample_signal_sigwait(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    return victim_sample_signal_sigwait();
}

static int case_exec_main_envp(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    victim_exec_main_envp(envp);
    return victim_fault_missed();
}

static int case_small_altstack_crash(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    victim_small_altstack(argv[2], SMALL_ALT_NULL_DEREF, 0);
    return victim_fault_missed();
}

static int case_small_altstack_main_crash(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    victim_small_altstack(argv[2], SMALL_ALT_IDLE, 1);
    return victim_fault_missed();
}

static int case_small_altstack_overflow(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    victim_small_altstack(argv[2], SMALL_ALT_OVERFLOW, 0);
    return victim_fault_missed();
}

static int case_small_altstack_crash_in_handler(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    victim_small_altstack_crash_in_handler(argv[2]);
    return victim_fault_missed();
}

static int case_privilege_drop(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    return victim_privilege_drop(argv[2]);
}

static int case_crash_as_nobody(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    victim_crash_as_nobody(argv[2]);
    return victim_fault_missed();
}

static int case_exec_as_nobody(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    return victim_exec_as_nobody(argv + 2);
}

static int case_refused_siblings(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    return victim_refused_siblings(argv + 2);
}

static int case_crash_after_namespaces(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    victim_crash_after_namespaces(argv[2]);
    return victim_fault_missed();
}

static int case_calls_while_cancelled(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    return victim_calls_while_cancelled();
}

static int case_interposer_results(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    return victim_interposer_results();
}

static int case_setid_loader_locked(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    return victim_setid_loader_locked();
}

static int case_truncated_mapping(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    return victim_truncated_mapping(argv[2]);
}

static int case_exit(int argc, char **argv, char **envp) {
    (void)argc, (void)argv, (void)envp;
    printf("victim: exiting\n");
    return argc > 2 ? atoi(argv[2]) : 0;
}

static const victim_case k_cases[] = {
    VICTIM_FAULT("null-deref", victim_null_deref,
                 "SIGSEGV: store through NULL"),
    VICTIM_FAULT("wild-pointer", victim_wild_pointer,
                 "SIGSEGV: store through an unmapped address"),
    VICTIM_FAULT("bus-error", victim_bus_error,
                 "SIGBUS: touch a file mapping past end of file"),
    VICTIM_FAULT("illegal-instruction", victim_illegal_instruction,
                 "SIGILL: execute ud2"),
    VICTIM_RUN("divide-by-zero", case_divide_by_zero,
               "SIGFPE: integer division by zero"),
    VICTIM_FAULT("abort", victim_abort,
                 "SIGABRT: call abort()"),
    VICTIM_FAULT("trap", victim_trap,
                 "SIGTRAP: execute int3"),
    VICTIM_FAULT("seccomp-trap", victim_seccomp_trap,
                 "SIGSYS: a syscall trapped by seccomp"),
    VICTIM_RUN("stack-overflow", case_stack_overflow,
               "SIGSEGV: unbounded recursion on the main thread"),
    VICTIM_RUN("thread-stack-overflow", case_thread_stack_overflow,
               "SIGSEGV: unbounded recursion on thread 'overflower'"),
    VICTIM_RUN("thread-crash", case_thread_crash,
               "SIGSEGV: NULL store on thread 'worker-7'"),
    VICTIM_RUN("blocked-thread-crash", case_blocked_thread_crash,
               "SIGSEGV: NULL store on thread 'blocker', which blocks every signal"),
    VICTIM_FAULT("two-threads-crash", victim_two_threads_crash,
                 "SIGSEGV on two threads at the same moment"),
    VICTIM_FAULT("crash-in-handler", victim_crash_in_handler,
                 "SIGSEGV with an agent crash callback that faults too"),
    VICTIM_FAULT("crash-with-threads", victim_crash_with_threads,
                 "SIGSEGV on main while three named threads idle"),
    VICTIM_FAULT("crash-with-many-threads", victim_crash_with_many_threads,
                 "SIGSEGV on main while 40 named threads idle"),
    VICTIM_FAULT("crash-beside-starting-threads", victim_crash_beside_starting_threads,
                 "SIGSEGV on main while threads 'start-asleep' and 'start-running' hold glibc's start-up mask (every signal blocked) until the stack request is pending"),
    VICTIM_FAULT("crash-beside-stalled-starts", victim_crash_beside_stalled_starts,
                 "SIGSEGV on main while threads 'stall-0' to 'stall-3' hold glibc's start-up mask and run 1.5 s once the stack request is pending"),
    VICTIM_FAULT("crash-beside-slow-answer", victim_crash_beside_slow_answer,
                 "as root: SIGSEGV on main while thread 'slow-answer' waits with its caller's stack page taken away; the unwind that answers the stack request faults on it, and thread 'uffd-server' (userfaultfd) puts it back 300 ms later"),
    VICTIM_RUN("reraise-from-handler", case_reraise_from_handler,
               "[siginfo] [altstack] [default|default-signal] SIGSEGV at NULL into a handler installed after the agent, which puts it back (or SIG_DFL, by sigaction or signal) and re-raises"),
    VICTIM_FAULT("raise-segv", victim_raise_segv,
                 "SIGSEGV raised with raise(), no fault"),
    VICTIM_FAULT("fault-in-signal-handler", victim_fault_in_signal_handler,
                 "SIGSEGV at NULL inside a SIGUSR1 handler the program raised"),
    VICTIM_FAULT("crash-in-copied-code", victim_crash_in_copied_code,
                 "SIGSEGV in a copy of a page of our own text mapped far from it (as node's builtins)"),
    VICTIM_FAULT("crash-in-anonymous-code", victim_crash_in_anonymous_code,
                 "SIGILL in an anonymous executable page (as JIT code), below a copy of a page of our own file"),
    VICTIM_FAULT("rename-tasks-then-crash", victim_rename_tasks_then_crash,
                 "SIGSEGV after writing 'renamed' into every task's /proc comm, Faultline's threads too"),
    VICTIM_RUN("crash-beside-crowd", case_crash_beside_crowd,
               "KIND [N] SIGSEGV on main beside N (64) threads 'crowd-I' that are all spinning, blocking (every signal, for good) or sleeping (in pause)"),
    VICTIM_FAULT("crash-beside-rt-handlers", victim_crash_beside_rt_handlers,
                 "handlers of its own on every real-time signal (as Go's runtime), a SIGRTMIN+8 queued to itself, then SIGSEGV on main while threads 'rt-idler-0' to 'rt-idler-2' pause"),
    VICTIM_RUN("crash-beside-signal-api", case_crash_beside_signal_api,
               "API: a handler of its own on SIGRTMIN+8 set with API (signal, bsd_signal, ssignal, sysv_signal, __sysv_signal, sigset, __sigaction, __libc_sigaction; or sigignore, SIG_IGN), a SIGRTMIN+8 queued to itself, then SIGSEGV on main while threads 'rt-idler-0' to 'rt-idler-2' pause"),
    VICTIM_RUN("sample-signal-oneshot", case_sample_signal_oneshot,
               "HOW: a one-shot handler on SIGRTMIN+8 (HOW: sysv_signal, or sigaction with SA_RESETHAND), SIGRTMIN+8 queued to main twice: the first runs it, the second ends the process"),
    VICTIM_RUN("sample-signal-mask", case_sample_signal_mask,
               "HOW: a handler on SIGRTMIN+8 with SIGUSR1 in sa_mask (HOW: defer, or nodefer: SA_NODEFER), SIGRTMIN+8 queued to main; says what was blocked while it ran"),
    VICTIM_RUN("sample-signal-default", case_sample_signal_default,
               "HOW: SIGRTMIN+8 left alone (HOW: never), set back to SIG_DFL (dfl) or ignored (ign), then sent to the process; says if still running"),
    VICTIM_RUN("sample-signal-sigwait", case_sample_signal_sigwait,
               "block SIGRTMIN+8, send it to the process and take it with sigtimedwait (2 s); exit 3 if it did not come"),
    VICTIM_FAULT("crash-without-report-dir", victim_crash_without_report_dir,
                 "remove the (empty) report directory, then SIGSEGV"),
    VICTIM_FAULT("stderr-after-closing-fds", victim_stderr_after_closing_fds,
                 "close fds 3 and up (close, closefrom, close_range), then write 80 KiB to stderr"),
    VICTIM_FAULT("crash-after-closing-fds", victim_crash_after_closing_fds,
                 "close fds 3-1023 (the report directory's by syscall), open '.' into the lowest 16 and that number, then SIGSEGV"),
    VICTIM_FAULT("crash-out-of-fds", victim_crash_out_of_fds,
                 "closefrom(3), open /dev/null until EMFILE while thread 'idler-0' idles, then SIGSEGV"),
    VICTIM_FAULT("crash-after-dup2-low-fds", victim_crash_after_dup2_onto_low_fds,
                 "dup2 /dev/null onto fds 3-63, write 80 KiB to stderr, then SIGSEGV"),
    VICTIM_FAULT("crash-holding-loader-lock", victim_crash_holding_loader_lock,
                 "SIGSEGV on main while thread 'lock-holder' holds the dynamic linker's lock for ever (inside dl_iterate_phdr)"),
    VICTIM_FAULT("crash-inside-loader-callback", victim_crash_inside_loader_callback,
                 "SIGSEGV on main inside its own dl_iterate_phdr callback, while thread 'idler' pauses"),
    VICTIM_FAULT("crash-with-blocking-callback", victim_crash_with_blocking_callback,
                 "SIGSEGV on main with a crash callback that waits for ever for a mutex thread 'mutex-holder' holds"),
    VICTIM_FAULT("dup2-churn", victim_dup2_churn,
                 "for 2 s, dup2 a file onto fd 3 and close it again, on a worker thread; exit 1 if fd 3 was ever not the program's"),
    VICTIM_FAULT("unwinds-at-once", victim_unwinds_at_once,
                 "4 threads walk with libunwind at once through frames without unwind tables, 5000 times; exit 3 if fds leaked"),
    VICTIM_FAULT("unwinds-at-once-mixed", victim_unwinds_at_once_mixed,
                 "unwinds-at-once with threads 2 and 4 walking uncounted, as the program's own use of libunwind"),
    VICTIM_FAULT("execle-env", victim_execle_env,
                 "execle /usr/bin/env with the environment VICTIM_EXECLE=from-execle"),
    VICTIM_RUN("exec-main-envp", case_exec_main_envp,
               "64 setenv calls, then execve /usr/bin/env with the envp main() received (as capsh --user does)"),
    VICTIM_RUN("small-altstack-crash", case_small_altstack_crash,
               "SIGSEGV: NULL store on thread 'small-alt'; it and main installed 8 KiB alternate stacks [SIZE]"),
    VICTIM_RUN("small-altstack-main-crash", case_small_altstack_main_crash,
               "SIGSEGV: NULL store on main; it and thread 'small-alt' installed 8 KiB alternate stacks [SIZE]"),
    VICTIM_RUN("small-altstack-overflow", case_small_altstack_overflow,
               "SIGSEGV: unbounded recursion on thread 'small-alt'; it and main installed 8 KiB alternate stacks [SIZE]"),
    VICTIM_RUN("small-altstack-crash-in-handler", case_small_altstack_crash_in_handler,
               "crash-in-handler on main with an 8 KiB alternate stack of its own [SIZE]"),
    VICTIM_RUN("privilege-drop", case_privilege_drop,
               "as root: drop to uid 65534 with a worker thread running, in setpriv's order (keepcaps), the same by raw syscalls (raw) or the plain order (plain); or drop CAP_NET_RAW by raw capset and setresuid(-1, -1, -1) while thread 'slow-setxid''s setresuid is held 4 s by thread 'vfork-holder' in vfork (queued); exit 1 unless every thread has main's ids and no capability main lacks"),
    VICTIM_RUN("crash-as-nobody", case_crash_as_nobody,
               "as root: become uid and gid 65534 for a while (temporary: setegid, seteuid; real and saved ids stay 0) or for good (permanent: setresgid, setresuid), then SIGSEGV on main"),
    VICTIM_RUN("exec-as-nobody", case_exec_as_nobody,
               "as root: become uid and gid 65534 for a while (setegid, seteuid) and exec PROG [ARGS] (a product next to victim-c when PROG has no '/')"),
    VICTIM_RUN("refused-siblings", case_refused_siblings,
               "[N] [permanent|temporary] as root: a forked server becomes 65534 (for good) and starts N (4) children at once that exec 'victim-c exit'; count the tree's 'cannot write reports' lines"),
    VICTIM_RUN("crash-after-namespaces", case_crash_after_namespaces,
               "as root: setns into a helper's mount and user namespaces, unshare(CLONE_NEWUSER), setns into a new time namespace, then SIGSEGV on main; threaded: with thread 'prog-worker' running, so each step fails with EINVAL or EUSERS"),
    VICTIM_FAULT("namespaces-leave-threads", victim_namespaces_leave_threads,
                 "as root, with thread 'prog-worker' running: the crash-after-namespaces steps (each refused), with the ids of Faultline's threads taken before and after, then SIGSEGV on main"),
    VICTIM_FAULT("crash-while-cancelled", victim_crash_while_cancelled,
                 "SIGSEGV on thread 'cancelled', which has a pthread_cancel pending (no cancellation point reached)"),
    VICTIM_FAULT("crash-beside-cancelled", victim_crash_beside_cancelled,
                 "SIGSEGV on main while thread 'waiter' waits in a raw futex call with a pthread_cancel pending"),
    VICTIM_RUN("calls-while-cancelled", case_calls_while_cancelled,
               "as root, with a pthread_cancel of its own pending: unshare(CLONE_NEWUSER), then setresuid(-1, -1, -1) with SIGRTMIN+8 ignored by a raw rt_sigaction; exit 1 unless both return 0"),
    VICTIM_RUN("interposer-results", case_interposer_results,
               "capset, prctl, setgroups, unshare and setns with arguments the kernel refuses: exit 1 unless each returns what the raw syscall returns, and no-op setresuid and prctl keep errno"),
    VICTIM_RUN("setid-loader-locked", case_setid_loader_locked,
               "the first setresuid(-1, -1, -1), unshare(0), setrlimit (the same limit) and close_range (of no fd) while another thread's dlopen holds the loader's lock; exit 0 when all succeed"),
    VICTIM_RUN("truncated-mapping", case_truncated_mapping,
               "[crash] map two files (shared, private) and cut them to 0 bytes, lose a 61-byte block, then exit 0 (or crash: SIGSEGV store through NULL)"),
    VICTIM_CALL("late-cxx-uncaught", victim_late_cxx_uncaught,
                "dlopen(RTLD_LOCAL) a C++ library, which throws and catches, then throws a std::runtime_error nobody catches"),
    VICTIM_RUN("exit", case_exit,
               "exit with the status given as the next argument (default 0)"),
};

int main(int argc, char **argv, char **envp) { return VICTIM_MAIN("victim-c", k_cases, argc, argv, envp); }
