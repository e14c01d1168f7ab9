// victim-leak: programs with known leaks for the leak scenarios
// (Scenarios/leaks/), one per command; each prints what it did on stdout.
// The commands and their help are the table at the end (victim_cases.h):
// adding one is a cmd_ function and a row. Cases live by what they test:
// lost/ (structures lost whole), roots/ (where the scan must find a
// pointer, or must not), checks/ (on-demand checks under signals, set*id,
// fork, cancellation), exits/ (exit checks after threads and forks, with
// no fd left), libc/ (blocks libc allocates for its caller); leak_sites.c
// holds the allocation sites several share; the simplest stay here.
#include "checks/check_under_setxid.h"
#include "checks/check_under_signal_flood.h"
#include "checks/check_while_cancelled.h"
#include "checks/fork_during_checks.h"
#include "checks/fork_during_install.h"
#include "checks/signal_alone.h"
#include "checks/signal_storm.h"
#include "exits/fork_children.h"
#include "exits/no_fds.h"
#include "exits/thread_exits.h"
#include "leak_sites.h"
#include "libc/libc_helpers.h"
#include "libc/realpath_old.h"
#include "libc/strdup_loader_locked.h"
#include "lost/detached_threads.h"
#include "exits/busy_at_exit.h"
#include "lost/gen_suppressions.h"
#include "lost/lost_pairs.h"
#include "lost/lost_tree.h"
#include "roots/dead_frames.h"
#include "roots/freed_tail.h"
#include "roots/no_frame_pointer.h"
#include "roots/reserved_region.h"
#include "roots/sampled_register.h"
#include "roots/stale_frame.h"
#include "victim_cases.h"
#include "victim_euid.h"
#include "victim_leak_check.h"

#include <alloca.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <limits.h>
#include <signal.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct node { struct node *next; char payload[40]; } node;

__attribute__((noinline)) static node *make_list(int n) {
    node *head = 0;
    for (int i = 0; i < n; i++) {
        node *x = malloc(sizeof *x);
        x->next = head;
        snprintf(x->payload, sizeof x->payload, "node %d", i);
        head = x;
    }
    return head;
}

__attribute__((noinline)) static void lose_list(void) {
    node *head = make_list(10);
    printf("victim: built a 10-node list at %p and dropped it\n", (void *)head);
    head = 0;
}

/// A ring: a circular doubly linked list, every node pointed to by two
/// others, so no node is unreferenced once the ring is dropped.
typedef struct ring_node { struct ring_node *next, *prev; char payload[32]; } ring_node;

__attribute__((noinline)) static ring_node *make_ring(int n) {
    ring_node *head = 0;
    for (int i = 0; i < n; i++) {
        ring_node *x = malloc(sizeof *x);
        snprintf(x->payload, sizeof x->payload, "ring node %d", i);
        if (!head) {
            x->next = x->prev = x;
        } else {
            x->next = head;
            x->prev = head->prev;
            head->prev->next = x;
            head->prev = x;
        }
        head = x;
    }
    return head;
}

__attribute__((noinline)) static void lose_ring(void) {
    ring_node *head = make_ring(10);
    printf("victim: built a 10-node ring at %p and dropped it\n", (void *)head);
    head = 0;
}

// Every thread of the process gets a seccomp filter under which
// process_vm_readv fails with EPERM, as in many sandboxes.
static void forbid_process_vm_readv(void) {
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = { .len = sizeof filter / sizeof filter[0], .filter = filter };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0) {
        perror("victim: seccomp");
        exit(2);
    }
}

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER;
static int g_held, g_checked;

__attribute__((noinline)) static void *thread_holder(void *unused) {
    void *volatile held = malloc(333);  // only this frame knows it
    pthread_mutex_lock(&g_lock);
    g_held = 1;
    pthread_cond_signal(&g_cond);
    while (!g_checked) pthread_cond_wait(&g_cond, &g_lock);
    pthread_mutex_unlock(&g_lock);
    free(held);
    return 0;
}

__attribute__((noinline)) static void *suppressed_allocator(size_t n) { return malloc(n); }

__attribute__((noinline)) static void lose_suppressed(void) {
    volatile char *a = suppressed_allocator(500);
    a[0] = 1;
    volatile char *b = malloc(91);
    b[0] = 1;
    a = b = 0;
}

__attribute__((noinline)) static void *grow_slowly(void) { return malloc(4096); }
__attribute__((noinline)) static void *dip_site(void) { return malloc(4096); }

// Live bytes on dip_site's stack (one call site, so one allocation stack)
// rise, fall to 0, then rise past where they were: not "rising in each
// snapshot", since a snapshot in the dip sees 0. The phases follow the
// clock, not counted sleeps (which stretch under load): one block every
// 10 ms for 350 ms, none for 250 ms, then 60 and one more every 10 ms for
// 250 ms. At 100 ms snapshots each rise spans fewer than the 5 the
// scenario asks for; a growth mode that skipped the dip would join them.
static long elapsed_ms(const struct timespec *t0) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

__attribute__((noinline)) static void grow_with_a_dip(void) {
    static void *held[128];
    int n = 0;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long t = 0; t < 850; t = elapsed_ms(&t0)) {
        int want = t < 350 ? 1 + (int)(t / 10) : t < 600 ? 0 : 60 + (int)((t - 600) / 10);
        while (n > want) free(held[--n]);
        while (n < want) held[n++] = dip_site();
        usleep(10000);
    }
    while (n) free(held[--n]);
}

// One allocation site reached through callers of the same frame shape, so
// the site's return address and stack pointer repeat while the caller
// changes: a stack cache keyed on them alone would merge the two paths.
__attribute__((noinline)) static void *path_left(size_t n) { return leak_site(n); }
__attribute__((noinline)) static void *path_right(size_t n) { return leak_site(n); }
// A frame whose size varies (alloca), so its caller's return address moves.
__attribute__((noinline)) static void *path_alloca(size_t n, size_t pad) {
    volatile char *scratch = alloca(pad);
    scratch[0] = 1;
    return leak_site(n);
}

__attribute__((noinline)) static void lose_through_two_paths(void) {
    for (int i = 0; i < 300; i++) {
        volatile char *a = path_left(24), *b = path_right(24), *c = path_alloca(40, 16 + (size_t)(i % 7) * 48);
        a[0] = b[0] = c[0] = 1;
    }
}

// --- cases: what each command runs -------------------------------------------

static int cmd_list(int argc, char **argv, char **envp) {
    lose_list();
    victim_clear_stack();
    return 0;
}

static int cmd_ring(int argc, char **argv, char **envp) {
    lose_ring();
    victim_clear_stack();
    return 0;
}

static int cmd_lost_pairs(int argc, char **argv, char **envp) {
    int rc = victim_lost_pairs();
    victim_clear_stack();
    return rc;
}

static int cmd_realpath_old(int argc, char **argv, char **envp) {
    int rc = victim_realpath_old();
    victim_clear_stack();  // printf and realpath left copies of the lost block's pointer below
    return rc;
}

static int cmd_libc_helpers(int argc, char **argv, char **envp) {
    int rc = victim_libc_helpers();
    victim_clear_stack();
    return rc;
}

static int cmd_libc_helper_jump(int argc, char **argv, char **envp) {
    int rc = victim_libc_helper_jump();
    victim_clear_stack();
    return rc;
}

static int cmd_libc_helper_reentry(int argc, char **argv, char **envp) {
    int rc = victim_libc_helper_reentry();
    victim_clear_stack();
    return rc;
}

static int cmd_exit_loader_locked(int argc, char **argv, char **envp) { return victim_exit_loader_locked(); }

static int cmd_libc_wrapper_loader_locked(int argc, char **argv, char **envp) { return victim_strdup_loader_locked(); }

static int cmd_stale_frame(int argc, char **argv, char **envp) { return victim_stale_frame(); }

static int cmd_no_frame_pointer(int argc, char **argv, char **envp) {
    int rc = victim_no_frame_pointer();
    victim_clear_stack();
    return rc;
}

static int cmd_cache(int argc, char **argv, char **envp) {
    fill_cache();
    leak_77();
    victim_clear_stack();
    printf("victim: cache of 100 blocks held by a global, one 77-byte block lost\n");
    return 0;
}

static int cmd_no_vm_readv(int argc, char **argv, char **envp) {
    forbid_process_vm_readv();
    fill_cache();
    leak_77();
    victim_clear_stack();
    printf("victim: process_vm_readv forbidden; cache of 100 blocks held by a global, one 77-byte block lost\n");
    return 0;
}

static int cmd_thread_stack(int argc, char **argv, char **envp) {
    victim_leak_check_fn check = victim_leak_check_needed();
    if (!check) return 2;
    pthread_t t;
    pthread_create(&t, 0, thread_holder, 0);
    pthread_mutex_lock(&g_lock);
    while (!g_held) pthread_cond_wait(&g_cond, &g_lock);
    pthread_mutex_unlock(&g_lock);
    // The wait comes after the first pthread_create: the shim starts its
    // helper thread there, which must be running to be stopped.
    if (argc > 2) usleep((useconds_t)atoi(argv[2]) * 1000);
    long lost = check();
    printf("victim: on-demand check while the thread holds its block: %ld lost\n", lost);
    pthread_mutex_lock(&g_lock);
    g_checked = 1;
    pthread_cond_broadcast(&g_cond);
    pthread_mutex_unlock(&g_lock);
    pthread_join(t, 0);
    return 0;
}

static int cmd_suppressed(int argc, char **argv, char **envp) {
    lose_suppressed();
    victim_clear_stack();
    printf("victim: lost 500 bytes from suppressed_allocator and 91 bytes from lose_suppressed\n");
    return 0;
}

static int cmd_suppressed_file(int argc, char **argv, char **envp) {
    FILE *f = fopen("leaks.supp", "w");
    if (!f) { perror("victim: leaks.supp"); return 2; }
    fputs("# leaks from this helper are expected\nleak:suppressed_allocator\n\nthis line is malformed\n", f);
    fclose(f);
    char path[PATH_MAX];
    if (!getcwd(path, sizeof path - 16)) return 2;
    strcat(path, "/leaks.supp");
    setenv("FAULTLINE_SUPPRESSIONS", path, 1);
    execl("/proc/self/exe", argv[0], "suppressed", (char *)0);
    perror("victim: exec");
    return 2;
}

/// FAULTLINE_LEAK_SIGNAL as the shim reads it, in the forms scenarios use
/// (the shim refuses anything else and keeps its default).
static int leak_signal(void) {
    const char *s = getenv("FAULTLINE_LEAK_SIGNAL");
    if (s && *s >= '0' && *s <= '9') return atoi(s);
    if (s && (!strcmp(s, "SIGUSR2") || !strcmp(s, "USR2"))) return SIGUSR2;
    if (s && !strncmp(s, "SIGRTMIN+", 9)) return SIGRTMIN + atoi(s + 9);
    return SIGRTMIN + 11;
}

static int cmd_signal(int argc, char **argv, char **envp) {
    leak_77();
    victim_clear_stack();
    int sig = leak_signal();
    printf("victim: raising signal %d for an on-demand leak check\n", sig);
    raise(sig);
    usleep(500000);  // the check runs on the shim's helper thread
    printf("victim: done\n");
    return 0;
}

static int cmd_unreadable_root(int argc, char **argv, char **envp) {
    int fd = open("short-file", O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || write(fd, "0123456789", 10) != 10) { perror("victim: short-file"); return 2; }
    long page = sysconf(_SC_PAGESIZE);
    char *m = mmap(0, (size_t)page * 3, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) { perror("victim: mmap"); return 2; }
    void *kept = malloc(555);
    memcpy(m + 64, &kept, sizeof kept);  // the block's only pointer
    kept = 0;
    leak_77();
    victim_clear_stack();
    printf("victim: the pointer to the 555-byte block lives only in a file mapping whose last 2 pages raise SIGBUS\n");
    return 0;
}

static int cmd_two_paths(int argc, char **argv, char **envp) {
    lose_through_two_paths();
    victim_clear_stack();
    printf("victim: lost 300 blocks through path_left, 300 through path_right, 300 through path_alloca\n");
    return 0;
}

static int cmd_growth_dip(int argc, char **argv, char **envp) {
    grow_with_a_dip();
    printf("victim: grew, dropped to nothing, grew again, freed it all\n");
    return 0;
}

static int cmd_many_stacks(int argc, char **argv, char **envp) {
    int n = argc > 2 ? atoi(argv[2]) : 8192;
    if (n < 1 || n > 8192) { fprintf(stderr, "victim: many-stacks takes 1 to 8192 blocks\n"); return 2; }
    lose_from_many_stacks(n);
    victim_clear_stack();
    printf("victim: lost %d blocks of 24 bytes, each from its own allocation stack\n", n);
    return 0;
}

static int cmd_small_stack_exit(int argc, char **argv, char **envp) {
    return victim_small_stack_exit(argc > 2 ? (size_t)atol(argv[2]) : 32768);
}

static int cmd_thread_stack_dead_frames(int argc, char **argv, char **envp) { return victim_thread_stack_dead_frames(); }

static int cmd_small_stack_exit_dead_frames(int argc, char **argv, char **envp) {
    return victim_small_stack_exit_dead_frames();
}

static int cmd_main_exits_first(int argc, char **argv, char **envp) { victim_main_exits_first(); }

static int cmd_signal_storm(int argc, char **argv, char **envp) {
    return victim_signal_storm(argc > 2 ? atoi(argv[2]) : 4, argc > 3 ? atoi(argv[3]) : 10);
}

static int cmd_fork_during_checks(int argc, char **argv, char **envp) {
    return victim_fork_during_checks(argc > 2 ? atoi(argv[2]) : 45, argc > 3 ? atoi(argv[3]) : 3);
}

static int cmd_signal_alone(int argc, char **argv, char **envp) {
    return victim_signal_alone(argc > 2 ? atoi(argv[2]) : 20);
}

static int cmd_check_under_signal_flood(int argc, char **argv, char **envp) {
    return victim_check_under_signal_flood(argc > 2 ? atoi(argv[2]) : 20);
}

static int cmd_check_under_setxid(int argc, char **argv, char **envp) {
    return victim_check_under_setxid(argc > 2 ? atoi(argv[2]) : 20);
}

static int cmd_checks_while_euid_flips(int argc, char **argv, char **envp) {
    leak_77();
    victim_clear_stack();
    return victim_checks_while_euid_flips(argc > 2 ? atoi(argv[2]) : 50);
}

static int cmd_fork_during_install(int argc, char **argv, char **envp) {
    return victim_fork_during_install(argc > 2 && !strcmp(argv[2], "late"));
}

static int cmd_fork_children(int argc, char **argv, char **envp) {
    int n = argc > 2 ? atoi(argv[2]) : 3;
    if (n < 1 || n > 100) { fprintf(stderr, "victim: fork-children takes 1 to 100 children\n"); return 2; }
    return victim_fork_children(n);
}

static int cmd_tree(int argc, char **argv, char **envp) { return victim_lost_tree(); }

static int cmd_cyclic_list(int argc, char **argv, char **envp) { return victim_lost_cyclic_list(); }

static int cmd_suppressed_tree(int argc, char **argv, char **envp) { return victim_suppressed_tree(argv[0]); }

static int cmd_suppressed_tree_run(int argc, char **argv, char **envp) { return victim_suppressed_tree_run(); }

static int cmd_detached_threads(int argc, char **argv, char **envp) {
    int n = argc > 2 ? atoi(argv[2]) : 100;
    if (n < 1 || n > 1000) { fprintf(stderr, "victim: detached-threads takes 1 to 1000 threads\n"); return 2; }
    return victim_detached_threads(n, argc > 3 && !strcmp(argv[3], "busy"));
}

static int cmd_asleep_at_exit(int argc, char **argv, char **envp) { return victim_asleep_at_exit(); }

static int cmd_freeing_at_exit(int argc, char **argv, char **envp) { return victim_freeing_at_exit(); }

static int cmd_ending_thread_tls(int argc, char **argv, char **envp) { return victim_ending_thread_tls(); }

static int cmd_gen_suppressions(int argc, char **argv, char **envp) {
    return victim_gen_suppressions(argc > 2 ? argv[2] : "all");
}

static int cmd_gen_suppressions_round_trip(int argc, char **argv, char **envp) {
    return victim_gen_suppressions_round_trip(argv[0]);
}

static int cmd_check_while_cancelled(int argc, char **argv, char **envp) { return victim_check_while_cancelled(); }

static int cmd_thread_exits(int argc, char **argv, char **envp) { return victim_thread_exits(); }

static int cmd_no_fds_left(int argc, char **argv, char **envp) { return victim_no_fds_left(); }

static int cmd_no_fds_at_exit(int argc, char **argv, char **envp) { return victim_no_fds_at_exit(); }

static int cmd_reserved_region(int argc, char **argv, char **envp) { return victim_reserved_region(); }

static int cmd_sampled_register(int argc, char **argv, char **envp) { return victim_sampled_register(); }

static int cmd_freed_tail(int argc, char **argv, char **envp) { return victim_freed_tail(); }

static int cmd_leak_as_nobody(int argc, char **argv, char **envp) {
    leak_77();
    victim_clear_stack();
    return victim_become_nobody("temporary") != 0 ? 3 : 0;  // exits as nobody, real and saved uid 0
}

static int cmd_growth(int argc, char **argv, char **envp) {
    int ms = argc > 2 ? atoi(argv[2]) : 50, n = argc > 3 ? atoi(argv[3]) : 20;
    for (int i = 0; i < n; i++) {
        volatile char *p = grow_slowly();
        p[0] = 1;
        usleep((useconds_t)ms * 1000);
    }
    printf("victim: leaked %d blocks of 4096 bytes, one every %d ms\n", n, ms);
    return 0;
}

// --- dispatch -------------------------------------------------------------------

static const victim_case k_cases[] = {
    VICTIM_RUN("list", cmd_list, "a 10-node linked list whose head pointer is dropped"),
    VICTIM_RUN("ring", cmd_ring,
               "a 10-node circular doubly linked list, dropped: every node is pointed to by two others"),
    VICTIM_RUN("lost-pairs", cmd_lost_pairs,
               "two dropped pairs of a 232- and a 56-byte block that point at each other, the bigger one allocated first in one pair, the smaller in the other (lost/lost_pairs.c)"),
    VICTIM_RUN("realpath-old", cmd_realpath_old,
               "glibc's old realpath refuses a NULL buffer, the current one allocates and loses it (libc/realpath_old.c)"),
    VICTIM_RUN("libc-helpers", cmd_libc_helpers, "blocks from strdup, asprintf, getline, realpath, ... lost (libc/libc_helpers.c)"),
    VICTIM_RUN("libc-helper-jump", cmd_libc_helper_jump, "getline left by siglongjmp, then a 55-byte block lost"),
    VICTIM_RUN("libc-helper-reentry", cmd_libc_helper_reentry,
               "a signal handler and a fopencookie callback allocate inside getline"),
    VICTIM_RUN("libc-wrapper-loader-locked", cmd_libc_wrapper_loader_locked,
               "the first wcsdup while another thread's dlopen holds the loader's lock (libc/strdup_loader_locked.c)"),
    VICTIM_RUN("exit-loader-locked", cmd_exit_loader_locked,
               "_exit while another thread's dlopen holds the loader's lock for good"),
    VICTIM_RUN("stale-frame", cmd_stale_frame,
               "an 88-byte block allocated under a stale frame record (roots/stale_frame.c), then lost"),
    VICTIM_RUN("no-frame-pointer", cmd_no_frame_pointer,
               "a 72-byte block allocated by a function without a frame pointer (roots/no_frame_pointer.c), then lost"),
    VICTIM_RUN("cache", cmd_cache, "100 blocks held by a global cache, plus one 77-byte leak"),
    VICTIM_RUN("no-vm-readv", cmd_no_vm_readv,
               "as cache, in a process whose seccomp filter makes process_vm_readv fail with EPERM (as sandboxes do)"),
    VICTIM_RUN("thread-stack", cmd_thread_stack,
               "[MS] a block held only in a thread's stack during an on-demand check (made MS ms after the thread holds it, default at once)"),
    VICTIM_RUN("thread-stack-dead-frames", cmd_thread_stack_dead_frames,
               "an on-demand check while a thread holds a block deep in its stack and the only pointer to another in a dead frame (roots/dead_frames.c)"),
    VICTIM_RUN("suppressed", cmd_suppressed, "a leak from suppressed_allocator() (and one that is not)"),
    VICTIM_RUN("suppressed-file", cmd_suppressed_file,
               "writes leaks.supp (with one malformed line) into the working directory and re-runs itself as `suppressed` with FAULTLINE_SUPPRESSIONS pointing at it"),
    VICTIM_RUN("signal", cmd_signal, "a 77-byte leak, then raises FAULTLINE_LEAK_SIGNAL (default SIGRTMIN+11)"),
    VICTIM_RUN("unreadable-root", cmd_unreadable_root,
               "a writable private mapping of a 10-byte file, 3 pages long: its first page holds the only pointer to a 555-byte block, the pages past the end of the file raise SIGBUS when touched; plus a 77-byte leak"),
    VICTIM_RUN("two-paths", cmd_two_paths,
               "300 blocks of 24 bytes each lost through path_left and path_right, which reach one allocation site at the same stack depth, and 300 through path_alloca at varying depths"),
    VICTIM_RUN("growth-dip", cmd_growth_dip,
               "grows by 4 KiB every 10 ms for 350 ms, frees it all and holds nothing for 250 ms, then takes more than before and grows for 250 ms more; frees everything (nothing leaks)"),
    VICTIM_RUN("many-stacks", cmd_many_stacks,
               "[N] loses N (8192, at most 8192) 24-byte blocks, each from its own allocation stack (13 levels of two call sites each)"),
    VICTIM_RUN("signal-storm", cmd_signal_storm,
               "[T B] T (4) threads malloc and free in a tight loop while main sends them B (10) bursts of FAULTLINE_LEAK_SIGNAL; each burst must be answered by a leak report (checks/signal_storm.c)"),
    VICTIM_RUN("fork-during-checks", cmd_fork_during_checks,
               "[SIG S] loses 8192 blocks from as many stacks, then for S (3) seconds sends itself SIG (45, FAULTLINE_LEAK_SIGNAL) and forks 20 children that exit(0) at once, each given 5 s to end (checks/fork_during_checks.c)"),
    VICTIM_RUN("signal-alone", cmd_signal_alone,
               "[N] one thread mallocs and frees while a forked child sends it FAULTLINE_LEAK_SIGNAL N (20) times, then once during a read(2); each must be answered by a leak report (checks/signal_alone.c)"),
    VICTIM_RUN("check-under-signal-flood", cmd_check_under_signal_flood,
               "[N] N (20) on-demand checks while a thread sends main SIGUSR1 without pause (checks/check_under_signal_flood.c)"),
    VICTIM_RUN("check-under-setxid", cmd_check_under_setxid,
               "[N] as root: N (20) on-demand checks while 3 threads loop on seteuid (checks/check_under_setxid.c)"),
    VICTIM_RUN("checks-while-euid-flips", cmd_checks_while_euid_flips,
               "[N] as root: loses 77 bytes, then N (50) on-demand checks while 3 threads loop on seteuid(65534)/seteuid(0), each writing its report into the root-owned report directory (checks/check_under_setxid.c)"),
    VICTIM_RUN("fork-during-install", cmd_fork_during_install,
               "[late] as root: forks while the shim installs its stop signal's handler for a thread's first seteuid (late: after the kernel has it); the child exits with exit(0) (checks/fork_during_install.c)"),
    VICTIM_RUN("fork-children", cmd_fork_children,
               "[N] loses 77 bytes, then forks N (3, at most 100) children that each lose 33 bytes and exit (each runs its exit check) (exits/fork_children.c)"),
    VICTIM_RUN("small-stack-exit", cmd_small_stack_exit,
               "[BYTES] a thread made with a BYTES (32 KiB) stack holds a 123-byte block in its frame, has a thread of its own lose 77 bytes, and calls exit(0): the exit check runs on that small stack (exits/thread_exits.c)"),
    VICTIM_RUN("small-stack-exit-dead-frames", cmd_small_stack_exit_dead_frames,
               "exit(0) from a 192 KiB-stack thread holding a block deep in its stack, the only pointer to another left in a dead frame (roots/dead_frames.c)"),
    VICTIM_RUN("main-exits-first", cmd_main_exits_first,
               "the main thread leaves with pthread_exit; a worker then fills the 100-block global cache, loses 77 bytes and returns, and glibc ends the process with exit(0) from it (exits/thread_exits.c)"),
    VICTIM_RUN("tree", cmd_tree, "a 127-node tree dropped by its root, 16 small leaks (lost/lost_tree.c)"),
    VICTIM_RUN("cyclic-list", cmd_cyclic_list, "a 12-node circular list, dropped (lost/lost_tree.c)"),
    VICTIM_RUN("suppressed-tree", cmd_suppressed_tree,
               "writes tree.supp and re-runs itself as suppressed-tree-run under it (lost/lost_tree.c)"),
    VICTIM_RUN("suppressed-tree-run", cmd_suppressed_tree_run,
               "a 7-node tree whose root's allocation is suppressed (lost/lost_tree.c)"),
    VICTIM_RUN("asleep-at-exit", cmd_asleep_at_exit,
               "three threads asleep (usleep, sleep, poll) as main returns, exiting 3/4/5 if woken early; one 48-byte block lost (exits/busy_at_exit.c)"),
    VICTIM_RUN("freeing-at-exit", cmd_freeing_at_exit,
               "a thread allocating and freeing as fast as it can while main loses one 48-byte block and returns (exits/busy_at_exit.c)"),
    VICTIM_RUN("ending-thread-tls", cmd_ending_thread_tls,
               "a thread in its key destructor holds a 100-byte block only in TLS as main returns; one 48-byte block lost (exits/busy_at_exit.c)"),
    VICTIM_RUN("detached-threads", cmd_detached_threads,
               "[N [busy]] N (100, at most 1000) detached threads each lose their argument and their result, with a busy loop on another core when asked (lost/detached_threads.c)"),
    VICTIM_RUN("gen-suppressions", cmd_gen_suppressions,
               "[first|all] leaks and a double free, for --gen-suppressions (lost/gen_suppressions.c)"),
    VICTIM_RUN("gen-suppressions-round-trip", cmd_gen_suppressions_round_trip,
               "runs `gen-suppressions first` with FAULTLINE_GEN_SUPPRESSIONS=1, then `gen-suppressions all` with what it printed as the suppressions file"),
    VICTIM_RUN("check-while-cancelled", cmd_check_while_cancelled,
               "a worker with a pthread_cancel pending calls faultline_leak_check(); main joins it, allocates and checks again (checks/check_while_cancelled.c)"),
    VICTIM_RUN("thread-exits", cmd_thread_exits,
               "4 threads each lose 77 bytes and end; main joins them and exits normally (their stacks stay mapped in glibc's cache) (exits/thread_exits.c)"),
    VICTIM_RUN("no-fds-left", cmd_no_fds_left,
               "fills the 100-block global cache and loses 77 bytes, then opens /dev/null until no fd is left (EMFILE) and asks for an on-demand check; closes them again and exits (exit check) (exits/no_fds.c)"),
    VICTIM_RUN("no-fds-at-exit", cmd_no_fds_at_exit,
               "fills the 100-block global cache and loses 77 bytes, then opens /dev/null until no fd is left (EMFILE) and exits with them open (exit check) (exits/no_fds.c)"),
    VICTIM_RUN("reserved-region", cmd_reserved_region,
               "a 64 MiB mapping touched in one page holds the only pointer to a 555-byte block, an untouched private file mapping the only pointer to a 444-byte block; a 77-byte leak; an on-demand check, then how many of the mapping's pages it made present (roots/reserved_region.c)"),
    VICTIM_RUN("sampled-register", cmd_sampled_register,
               "keeps the only pointer to a 99-byte block in a register (r12 on x86-64) while it spins for 600 ms (the hang watchdog samples it), then drops it and exits (roots/sampled_register.c)"),
    VICTIM_RUN("freed-tail", cmd_freed_tail,
               "frees a 16 KiB and a 256 KiB table whose last word holds the only pointer to a 48- and a 56-byte block, past the shim's 4 KiB scribble limit (roots/freed_tail.c)"),
    VICTIM_RUN("leak-as-nobody", cmd_leak_as_nobody,
               "as root: loses 77 bytes, then becomes uid and gid 65534 by setegid and seteuid (real and saved ids stay 0) and exits so (the exit check runs as nobody)"),
    VICTIM_RUN("growth", cmd_growth, "[MS N] leaks 4 KiB every MS (50) ms, N (20) times, from grow_slowly()"),
};

int main(int argc, char **argv, char **envp) {
    setvbuf(stdout, 0, _IOLBF, 0);
    return VICTIM_MAIN("victim-leak", k_cases, argc, argv, envp);
}
