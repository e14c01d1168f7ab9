// victim-leak: programs with known leaks for the leak scenarios
// (Scenarios/leaks/). Each command prints what it did on stdout.
//   list            a 10-node linked list whose head pointer is dropped
//   ring            a 10-node circular doubly linked list, dropped: every
//                   node is pointed to by two others
//   lost-pairs      two dropped pairs of a 232- and a 56-byte block that point
//                   at each other, the bigger one allocated first in one pair,
//                   the smaller in the other (lost_pairs.c)
//   libc-helpers    blocks from strdup, asprintf, getline, realpath, … lost
//                   (libc_helpers.c)
//   libc-helper-jump  getline left by siglongjmp, then a 55-byte block lost
//   libc-helper-reentry  a signal handler and a fopencookie callback allocate
//                   inside getline
//   libc-wrapper-loader-locked  the first wcsdup while another thread's dlopen holds
//                   the loader's lock (strdup_loader_locked.c)
//   exit-loader-locked  _exit while another thread's dlopen holds the loader's
//                   lock for good
//   stale-frame     an 88-byte block allocated under a stale frame record
//                   (stale_frame.c), then lost
//   no-frame-pointer  a 72-byte block allocated by a function without a frame
//                   pointer (no_frame_pointer.c), then lost
//   cache           100 blocks held by a global cache, plus one 77-byte leak
//   thread-stack [MS] a block held only in a thread's stack during an on-demand
//                   check (made MS ms after start, default at once: the
//                   shim's helper thread has started by then)
//   suppressed      a leak from suppressed_allocator() (and one that is not)
//   suppressed-file writes leaks.supp (with one malformed line) into the
//                   working directory and re-runs itself as `suppressed` with
//                   FAULTLINE_SUPPRESSIONS pointing at it
//   signal          a 222-byte leak, then raises FAULTLINE_LEAK_SIGNAL (default SIGRTMIN+11)
//   growth MS N     leaks 4 KiB every MS ms, N times, from grow_slowly()
//   two-paths       300 blocks of 24 bytes each lost through path_left and
//                   path_right, which reach one allocation site at the same
//                   stack depth, and 300 through path_alloca at varying depths
//   unreadable-root a writable private mapping of a 100-byte file, 3 pages
//                   long: its first page holds the only pointer to a 555-byte
//                   block, the pages past the end of the file raise SIGBUS
//                   when touched; plus a 77-byte leak
//   no-vm-readv     as cache, in a process whose seccomp filter makes
//                   process_vm_readv fail with EPERM (as sandboxes do)
//   growth-dip      grows by 4 KiB every 10 ms for 350 ms, frees it all and
//                   holds nothing for 250 ms, then takes more than before and
//                   grows for 250 ms more; frees everything (nothing leaks)
//   many-stacks N   loses N (up to 8192) 24-byte blocks, each from its own
//                   allocation stack (13 levels of two call sites each)
//   signal-storm T B T threads malloc and free in a tight loop while main sends
//                   them B bursts of FAULTLINE_LEAK_SIGNAL; each burst must
//                   be answered by a leak report (signal_storm.c)
//   fork-during-checks SIG S loses 8192 blocks from as many stacks, then
//                   for S seconds sends itself SIG (FAULTLINE_LEAK_SIGNAL)
//                   and forks 20 children that exit(0) at once, each given
//                   5 s to end
//   check-under-signal-flood [N]: N (20) on-demand checks while a thread
//                   sends main SIGUSR1 without pause (check_under_signal_flood.c)
//   check-under-setxid [N] as root: N (20) on-demand checks while 3 threads
//                   loop on seteuid (check_under_setxid.c)
//   checks-while-euid-flips [N] as root: loses 77 bytes, then N (50)
//                   on-demand checks while 3 threads loop on
//                   seteuid(65534)/seteuid(0), each writing its report into
//                   the root-owned report directory (check_under_setxid.c)
//   fork-during-install [late] as root: forks while the shim installs its
//                   stop signal's handler for a thread's first seteuid
//                   (late: after the kernel has it); the child exits with
//                   exit(0) (fork_during_install.c)
//   fork-children N loses 77 bytes, then forks N children that each lose 33
//                   bytes and exit (each runs its exit check)
//   small-stack-exit [BYTES] a thread made with a BYTES (default 32 KiB) stack holds a 123-byte block
//                   in its frame, has a thread of its own lose 77 bytes, and
//                   calls exit(0): the exit check runs on that small stack
//   main-exits-first the main thread leaves with pthread_exit; a worker then
//                   fills the 100-block global cache, loses 77 bytes and
//                   returns, and glibc ends the process with exit(0) from it
//   tree            a 127-node tree dropped by its root, 16 small leaks (lost/lost_tree.c)
//   cyclic-list     a 12-node circular list, dropped
//   suppressed-tree a 7-node tree whose root's allocation is suppressed
//   detached-threads [N [busy]] N (100) detached threads each lose their
//                   argument and their result, with a busy loop on another
//                   core when asked (lost/detached_threads.c)
//   gen-suppressions [first|all] leaks and a double free, for
//                   --gen-suppressions (lost/gen_suppressions.c)
//   gen-suppressions-round-trip runs `gen-suppressions first` with
//                   FAULTLINE_GEN_SUPPRESSIONS=1, then `gen-suppressions
//                   all` with what it printed as the suppressions file
//   thread-exits    4 threads each lose 77 bytes and end; main joins them
//                   and exits normally (their stacks stay mapped in glibc's
//                   cache)
//   no-fds-left     fills the 100-block global cache and loses 77 bytes, then
//                   opens /dev/null until no fd is left (EMFILE) and asks for
//                   an on-demand check; closes them again and exits (exit
//                   check)
//   no-fds-at-exit  fills the 100-block global cache and loses 77 bytes, then
//                   opens /dev/null until no fd is left (EMFILE) and exits
//                   with them open (exit check)
//   reserved-region a 64 MiB anonymous read-write mapping, touched in one
//                   page only, which holds the only pointer to a 555-byte
//                   block; a private mapping of a file, never touched, whose
//                   file holds the only pointer to a 444-byte block; a 77-byte
//                   leak. Then an on-demand check, and the number of the
//                   mapping's pages it made present (the zero page mapped in
//                   by reading them) is printed
//   sampled-register keeps the only pointer to a 99-byte block in a
//                   register (r12 on x86-64) while it spins for 600 ms (the hang watchdog
//                   samples it: each sample signal's frame on the alternate
//                   stack holds that register), then drops it and exits
//   freed-tail      frees a 16 KiB and a 256 KiB table whose last word holds
//                   the only pointer to a 48- and a 56-byte block: past the
//                   4 KiB scribble limit, so only the shim clearing a freed
//                   block's tail stops those words from keeping the blocks
//                   "still reachable"
//   leak-as-nobody  as root: loses 77 bytes, then becomes uid and gid 65534
//                   by setegid and seteuid (real and saved ids stay 0) and
//                   exits so (the exit check runs as nobody)
#include "check_under_setxid.h"
#include "check_under_signal_flood.h"
#include "dead_frames.h"
#include "fork_during_install.h"
#include "libc_helpers.h"
#include "lost_pairs.h"
#include "lost/detached_threads.h"
#include "lost/gen_suppressions.h"
#include "lost/lost_tree.h"
#include "realpath_old.h"
#include "check_while_cancelled.h"
#include "signal_storm.h"
#include "stale_frame.h"
#include "no_frame_pointer.h"
#include "strdup_loader_locked.h"
#include "victim_event_loop.h"
#include "victim_euid.h"
#include "victim_fds.h"
#include "victim_threads.h"

#include <alloca.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <limits.h>
#include <signal.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct node { struct node *next; char payload[40]; } node;

// Overwrites dead stack below the caller so stale copies of pointers left
// there by earlier calls are gone (a conservative scan would see them).
__attribute__((noinline)) static void clear_stack(void) {
    volatile char junk[16384];
    memset((char *)junk, 0, sizeof junk);
}

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

static void *g_cache[100];

__attribute__((noinline)) static void fill_cache(void) {
    for (int i = 0; i < 100; i++) g_cache[i] = malloc(64);
}

__attribute__((noinline)) static void leak_77(void) {
    volatile char *p = malloc(77);
    p[0] = 1;
    p = 0;
}

__attribute__((noinline)) static void leak_33_in_child(void) {
    volatile char *p = malloc(33);
    p[0] = 1;
    p = 0;
}

/// Fills the global cache and loses 77 bytes, then forks `n` children that
/// each free part of the cache they inherited, lose 33 bytes of their own
/// and exit normally (exit check in each); the parent waits for them.
static int fork_children(int n) {
    fill_cache();  // reachable; each child frees the parent's blocks it inherited
    leak_77();
    clear_stack();
    for (int i = 0; i < n; i++) {
        fflush(0);
        pid_t p = fork();
        if (p < 0) { perror("victim: fork"); return 2; }
        if (p == 0) {
            for (int k = 0; k < 100; k += 1 + k % 3) { free(g_cache[k]); g_cache[k] = 0; }
            leak_33_in_child();
            clear_stack();
            exit(0);
        }
        int status;
        while (waitpid(p, &status, 0) < 0 && errno == EINTR) {}
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) { printf("victim: child %d did not exit 0\n", i); return 1; }
    }
    printf("victim: lost 77 bytes, then %d forked children lost 33 bytes each and exited\n", n);
    return 0;
}

// Forks children while the faultline-leaks thread writes the report of a
// check the leak signal asked for (8192 groups: a long report). A child
// forked then inherits the shim's check lock held by a thread it does not
// have; its exit check must still run and end. Each child gets 5 s.
__attribute__((noinline)) static void lose_from_many_stacks(int n);

static int fork_during_checks(int signo, int seconds) {
    lose_from_many_stacks(8192);
    clear_stack();
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int children = 0;
    do {
        kill(getpid(), signo);
        for (int i = 0; i < 20; i++, children++) {
            fflush(0);
            pid_t p = fork();
            if (p < 0) { perror("victim: fork"); return 2; }
            if (p == 0) exit(0);  // runs the shim's exit check
            int status = 0, waited = 0;
            while (waitpid(p, &status, WNOHANG) == 0 && waited < 5000) { usleep(1000); waited++; }
            if (waited >= 5000) {
                printf("victim: child %d did not end within 5 s of exit(0) (its exit check hung)\n", children);
                kill(p, SIGKILL);
                waitpid(p, &status, 0);
                return 1;
            }
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while (t.tv_sec - t0.tv_sec < seconds);
    printf("victim: %d children forked during leak checks all ended\n", children);
    return 0;
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

static long (*leak_check(void))(void) { return (long (*)(void))dlsym(RTLD_DEFAULT, "faultline_leak_check"); }

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

// Loses the block on a thread of its own that has ended by the exit check:
// a stale copy of the pointer left in a register spill slot of this
// thread's stack (which clear_stack cannot reach above its own frame) would
// otherwise make the scan call it reachable, depending on how the shim and
// the victim were compiled.
__attribute__((noinline)) static void *leaking_thread(void *unused) {
    leak_77();
    return 0;
}

__attribute__((noinline)) static void *last_worker(void *unused) {
    if (!victim_main_thread_gone()) printf("victim: the main thread did not end within 5 s\n");
    fill_cache();
    pthread_t t;
    pthread_create(&t, 0, leaking_thread, 0);
    pthread_join(t, 0);
    clear_stack();
    printf("victim: worker returns; it is the last thread\n");
    return 0;  // glibc calls exit(0) here: the program has no thread left
}

__attribute__((noinline)) static void *small_stack_exiter(void *unused) {
    void *volatile held = malloc(123);  // only this frame knows it: reachable
    pthread_t t;
    pthread_create(&t, 0, leaking_thread, 0);
    pthread_join(t, 0);
    printf("victim: exiting from a thread with a small stack\n");
    fflush(stdout);
    exit(held ? 0 : 2);
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
// snapshot" - a snapshot in the dip sees 0. The phases are measured on the
// clock, not in counted sleeps, which stretch on a loaded machine (at a
// load of 10 the first rise lasted 4 snapshots and was rightly reported):
// one block every 10 ms for 350 ms, nothing for 250 ms, 60 blocks and one
// more every 10 ms for 250 ms. With snapshots every 100 ms the first rise
// spans 3 or 4 of them and the second, after the dip's 0, 2 or 3: fewer
// than the 5 the scenario asks for; a growth mode that skipped the
// snapshot in the dip would join them into 5 to 7.
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
__attribute__((noinline)) static void *leak_site(size_t n) { return malloc(n); }
__attribute__((noinline)) static void *path_left(size_t n) { return leak_site(n); }
__attribute__((noinline)) static void *path_right(size_t n) { return leak_site(n); }
// A frame whose size varies (alloca), so its caller's return address moves.
__attribute__((noinline)) static void *path_alloca(size_t n, size_t pad) {
    volatile char *scratch = alloca(pad);
    scratch[0] = 1;
    return leak_site(n);
}

// Descends `levels` levels, through one of two call sites at each level
// (bit `level` of `path`), and loses a block at the bottom: every path is
// an allocation stack of its own.
__attribute__((noinline)) static void descend(unsigned path, int level, int levels) {
    if (level == levels) {
        volatile char *p = leak_site(24);
        p[0] = 1;
        return;
    }
    if ((path >> level) & 1) descend(path, level + 1, levels);
    else descend(path, level + 1, levels);
    __asm__ volatile("" ::: "memory");  // keeps both calls real calls, not tail jumps
}

__attribute__((noinline)) static void lose_from_many_stacks(int n) {
    for (int i = 0; i < n; i++) descend((unsigned)i, 0, 13);
}

__attribute__((noinline)) static void lose_through_two_paths(void) {
    for (int i = 0; i < 300; i++) {
        volatile char *a = path_left(24), *b = path_right(24), *c = path_alloca(40, 16 + (size_t)(i % 7) * 48);
        a[0] = b[0] = c[0] = 1;
    }
}

// Pages of [p, p + len) that /proc/self/pagemap says are present or swapped
// out, or -1.
static long touched_pages(const char *p, size_t len) {
    long page = sysconf(_SC_PAGESIZE), n = 0;
    int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    for (size_t off = 0; off < len; off += (size_t)page) {
        unsigned long long e;
        if (pread(fd, &e, sizeof e, (off_t)(((uintptr_t)p + off) / (uintptr_t)page * sizeof e)) != sizeof e) { n = -1; break; }
        if (e >> 62) n++;
    }
    close(fd);
    return n;
}

/// The thread-exits command (see the top of the file).
static int thread_exits(void) {
    pthread_t t[4];
    for (int i = 0; i < 4; i++) pthread_create(&t[i], 0, leaking_thread, 0);
    for (int i = 0; i < 4; i++) pthread_join(t[i], 0);
    clear_stack();
    printf("victim: 4 threads each lost 77 bytes and ended\n");
    return 0;
}

/// The no-fds-left command (see the top of the file).
static int no_fds_left(void) {
    long (*check)(void) = leak_check();
    if (!check) { printf("victim: faultline_leak_check not found (shim not preloaded)\n"); return 2; }
    fill_cache();
    leak_77();
    clear_stack();
    victim_use_up_fds();
    int err = errno;
    long lost = check();
    victim_release_fds();
    printf("victim: opened /dev/null until %s; on-demand check with no fd left: %ld\n", err == EMFILE ? "EMFILE" : "another error", lost);
    return 0;
}

/// The no-fds-at-exit command (see the top of the file).
static int no_fds_at_exit(void) {
    fill_cache();
    leak_77();
    clear_stack();
    int n = victim_use_up_fds();
    printf("victim: opened %d fds until %s; exiting with them open\n", n, errno == EMFILE ? "EMFILE" : "another error");
    return 0;
}

/// The reserved-region command (see the top of the file).
static int reserved_region(void) {
    long (*check)(void) = leak_check();
    if (!check) { printf("victim: faultline_leak_check not found (shim not preloaded)\n"); return 2; }
    size_t len = 64u << 20;
    long page = sysconf(_SC_PAGESIZE);
    char *r = mmap(0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED) { perror("victim: mmap"); return 2; }
    void *kept = malloc(555);
    memcpy(r + len / 2 + 64, &kept, sizeof kept);  // the block's only pointer, in the one touched page
    kept = 0;
    // The file is written with write(), so the mapping's page is never
    // touched in this process: its contents are the file's.
    int fd = open("pointer-file", O_RDWR | O_CREAT | O_TRUNC, 0600);
    char buf[128] = {0};
    void *in_file = malloc(444);
    memcpy(buf + 64, &in_file, sizeof in_file);
    in_file = 0;
    if (fd < 0 || write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) { perror("victim: pointer-file"); return 2; }
    memset(buf, 0, sizeof buf);
    char *f = mmap(0, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (f == MAP_FAILED) { perror("victim: mmap pointer-file"); return 2; }
    close(fd);
    leak_77();
    clear_stack();
    long before = touched_pages(r, len);
    long lost = check();
    long after = touched_pages(r, len);
    printf("victim: on-demand check: %ld lost; %ld of %zu pages of the reserved region touched before it, %ld after\n",
           lost, before, len / (size_t)page, after);
    return 0;
}

/// The sampled-register command (see the top of the file).
__attribute__((noinline)) static void spin_holding(void) {
    char *b = malloc(99);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        unsigned long n = 10000000;
#if defined(__x86_64__)
        // b sits in r12 for the whole loop (clang and gcc at -O0 keep it in
        // memory otherwise, and a sample would rarely catch it in a register).
        __asm__ volatile("mov %1, %%r12\n1:\n\tdec %0\n\tjnz 1b\n\txor %%r12d, %%r12d" : "+r"(n) : "r"(b) : "r12", "cc");
#else
        for (; n; n--) __asm__ volatile("" : "+r"(b));
#endif
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 600000000L);
    b = 0;
}

static int sampled_register(void) {
    // Idle first, as an event loop does: inferred hang mode samples a
    // spinning main only once it has seen it wait for events (without this
    // no sample was ever taken, and the scenario tested nothing).
    victim_idle_like_event_loop(800);
    spin_holding();
    clear_stack();
    printf("victim: held a 99-byte block in a register for 600 ms of CPU, then lost it\n");
    return 0;
}

/// The freed-tail command (see the top of the file).
__attribute__((noinline)) static void lose_through_freed_tables(void) {
    static const size_t sizes[2] = {16 << 10, 256 << 10}, leaked[2] = {48, 56};
    for (int i = 0; i < 2; i++) {
        void **table = calloc(sizes[i] / sizeof(void *), sizeof(void *));
        table[sizes[i] / sizeof(void *) - 1] = malloc(leaked[i]);
        free(table);
    }
}

static int freed_tail(void) {
    lose_through_freed_tables();
    clear_stack();
    printf("victim: freed two tables whose last words held the only pointers to 104 bytes\n");
    return 0;
}

int main(int argc, char **argv) {
    setvbuf(stdout, 0, _IOLBF, 0);
    const char *cmd = argc > 1 ? argv[1] : "";
    if (!strcmp(cmd, "list")) {
        lose_list();
        clear_stack();
    } else if (!strcmp(cmd, "ring")) {
        lose_ring();
        clear_stack();
    } else if (!strcmp(cmd, "lost-pairs")) {
        victim_lost_pairs();
        clear_stack();
    } else if (!strcmp(cmd, "realpath-old")) { victim_realpath_old();
    } else if (!strcmp(cmd, "libc-helpers")) {
        victim_libc_helpers();
        clear_stack();
    } else if (!strcmp(cmd, "libc-helper-jump")) {
        victim_libc_helper_jump();
        clear_stack();
    } else if (!strcmp(cmd, "exit-loader-locked")) {
        return victim_exit_loader_locked();
    } else if (!strcmp(cmd, "libc-wrapper-loader-locked")) {
        return victim_strdup_loader_locked();
    } else if (!strcmp(cmd, "libc-helper-reentry")) {
        victim_libc_helper_reentry();
        clear_stack();
    } else if (!strcmp(cmd, "stale-frame")) {
        victim_stale_frame();
    } else if (!strcmp(cmd, "no-frame-pointer")) {
        victim_no_frame_pointer();
        clear_stack();
    } else if (!strcmp(cmd, "cache")) {
        fill_cache();
        leak_77();
        clear_stack();
        printf("victim: cache of 100 blocks held by a global, one 77-byte block lost\n");
    } else if (!strcmp(cmd, "no-vm-readv")) {
        forbid_process_vm_readv();
        fill_cache();
        leak_77();
        clear_stack();
        printf("victim: process_vm_readv forbidden; cache of 100 blocks held by a global, one 77-byte block lost\n");
    } else if (!strcmp(cmd, "thread-stack")) {
        long (*check)(void) = leak_check();
        if (!check) { printf("victim: faultline_leak_check not found (shim not preloaded)\n"); return 2; }
        if (argc > 2) usleep((useconds_t)atoi(argv[2]) * 1000);
        pthread_t t;
        pthread_create(&t, 0, thread_holder, 0);
        pthread_mutex_lock(&g_lock);
        while (!g_held) pthread_cond_wait(&g_cond, &g_lock);
        pthread_mutex_unlock(&g_lock);
        long lost = check();
        printf("victim: on-demand check while the thread holds its block: %ld lost\n", lost);
        pthread_mutex_lock(&g_lock);
        g_checked = 1;
        pthread_cond_broadcast(&g_cond);
        pthread_mutex_unlock(&g_lock);
        pthread_join(t, 0);
    } else if (!strcmp(cmd, "suppressed")) {
        lose_suppressed();
        clear_stack();
        printf("victim: lost 500 bytes from suppressed_allocator and 91 bytes from lose_suppressed\n");
    } else if (!strcmp(cmd, "suppressed-file")) {
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
    } else if (!strcmp(cmd, "signal")) {
        leak_77();
        clear_stack();
        const char *s = getenv("FAULTLINE_LEAK_SIGNAL");
        // As the shim reads it (the forms scenarios use); anything else
        // is refused by the shim, which keeps the default.
        int sig = SIGRTMIN + 11;
        if (s && *s >= '0' && *s <= '9') sig = atoi(s);
        else if (s && (!strcmp(s, "SIGUSR2") || !strcmp(s, "USR2"))) sig = SIGUSR2;
        else if (s && !strncmp(s, "SIGRTMIN+", 9)) sig = SIGRTMIN + atoi(s + 9);
        printf("victim: raising signal %d for an on-demand leak check\n", sig);
        raise(sig);
        usleep(500000);  // the check runs on the shim's helper thread
        printf("victim: done\n");
    } else if (!strcmp(cmd, "unreadable-root")) {
        int fd = open("short-file", O_RDWR | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || write(fd, "0123456789", 10) != 10) { perror("victim: short-file"); return 2; }
        long page = sysconf(_SC_PAGESIZE);
        char *m = mmap(0, (size_t)page * 3, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) { perror("victim: mmap"); return 2; }
        void *kept = malloc(555);
        memcpy(m + 64, &kept, sizeof kept);  // the block's only pointer
        kept = 0;
        leak_77();
        clear_stack();
        printf("victim: the pointer to the 555-byte block lives only in a file mapping whose last 2 pages raise SIGBUS\n");
    } else if (!strcmp(cmd, "two-paths")) {
        lose_through_two_paths();
        clear_stack();
        printf("victim: lost 300 blocks through path_left, 300 through path_right, 300 through path_alloca\n");
    } else if (!strcmp(cmd, "growth-dip")) {
        grow_with_a_dip();
        printf("victim: grew, dropped to nothing, grew again, freed it all\n");
    } else if (!strcmp(cmd, "many-stacks")) {
        int n = argc > 2 ? atoi(argv[2]) : 8192;
        if (n < 1 || n > 8192) { fprintf(stderr, "victim: many-stacks takes 1 to 8192 blocks\n"); return 2; }
        lose_from_many_stacks(n);
        clear_stack();
        printf("victim: lost %d blocks of 24 bytes, each from its own allocation stack\n", n);
    } else if (!strcmp(cmd, "small-stack-exit")) {
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setstacksize(&a, argc > 2 ? (size_t)atol(argv[2]) : 32768);
        pthread_t t;
        if (pthread_create(&t, &a, small_stack_exiter, 0) != 0) { perror("victim: pthread_create"); return 2; }
        pthread_join(t, 0);
        return 1;  // not reached: the thread exits
    } else if (!strcmp(cmd, "thread-stack-dead-frames")) { return victim_thread_stack_dead_frames();
    } else if (!strcmp(cmd, "small-stack-exit-dead-frames")) { return victim_small_stack_exit_dead_frames();
    } else if (!strcmp(cmd, "main-exits-first")) {
        pthread_t t;
        pthread_create(&t, 0, last_worker, 0);
        printf("victim: main thread leaves with pthread_exit\n");
        pthread_exit(0);
    } else if (!strcmp(cmd, "signal-storm")) {
        return victim_signal_storm(argc > 2 ? atoi(argv[2]) : 4, argc > 3 ? atoi(argv[3]) : 10);
    } else if (!strcmp(cmd, "fork-during-checks")) {
        return fork_during_checks(argc > 2 ? atoi(argv[2]) : 45, argc > 3 ? atoi(argv[3]) : 3);
    } else if (!strcmp(cmd, "check-under-signal-flood")) {
        return victim_check_under_signal_flood(argc > 2 ? atoi(argv[2]) : 20);
    } else if (!strcmp(cmd, "check-under-setxid")) {
        return victim_check_under_setxid(argc > 2 ? atoi(argv[2]) : 20);
    } else if (!strcmp(cmd, "checks-while-euid-flips")) {
        leak_77();
        clear_stack();
        return victim_checks_while_euid_flips(argc > 2 ? atoi(argv[2]) : 50);
    } else if (!strcmp(cmd, "fork-during-install")) {
        return victim_fork_during_install(argc > 2 && !strcmp(argv[2], "late"));
    } else if (!strcmp(cmd, "fork-children")) {
        int n = argc > 2 ? atoi(argv[2]) : 3;
        if (n < 1 || n > 100) { fprintf(stderr, "victim: fork-children takes 1 to 100 children\n"); return 2; }
        return fork_children(n);
    } else if (!strcmp(cmd, "thread-exits")) {
        return thread_exits();
    } else if (!strcmp(cmd, "tree")) {
        return victim_lost_tree();
    } else if (!strcmp(cmd, "cyclic-list")) {
        return victim_lost_cyclic_list();
    } else if (!strcmp(cmd, "suppressed-tree")) {
        return victim_suppressed_tree(argv[0]);
    } else if (!strcmp(cmd, "suppressed-tree-run")) {
        return victim_suppressed_tree_run();
    } else if (!strcmp(cmd, "detached-threads")) {
        int n = argc > 2 ? atoi(argv[2]) : 100;
        if (n < 1 || n > 1000) { fprintf(stderr, "victim: detached-threads takes 1 to 1000 threads\n"); return 2; }
        return victim_detached_threads(n, argc > 3 && !strcmp(argv[3], "busy"));
    } else if (!strcmp(cmd, "gen-suppressions")) {
        return victim_gen_suppressions(argc > 2 ? argv[2] : "all");
    } else if (!strcmp(cmd, "gen-suppressions-round-trip")) {
        return victim_gen_suppressions_round_trip(argv[0]);
    } else if (!strcmp(cmd, "check-while-cancelled")) {
        return victim_check_while_cancelled();
    } else if (!strcmp(cmd, "no-fds-left")) {
        return no_fds_left();
    } else if (!strcmp(cmd, "no-fds-at-exit")) {
        return no_fds_at_exit();
    } else if (!strcmp(cmd, "reserved-region")) {
        return reserved_region();
    } else if (!strcmp(cmd, "sampled-register")) {
        return sampled_register();
    } else if (!strcmp(cmd, "freed-tail")) {
        return freed_tail();
    } else if (!strcmp(cmd, "leak-as-nobody")) {
        leak_77();
        clear_stack();
        return victim_become_nobody("temporary") != 0 ? 3 : 0;  // exits as nobody, real and saved uid 0
    } else if (!strcmp(cmd, "growth")) {
        int ms = argc > 2 ? atoi(argv[2]) : 50, n = argc > 3 ? atoi(argv[3]) : 20;
        for (int i = 0; i < n; i++) {
            volatile char *p = grow_slowly();
            p[0] = 1;
            usleep((useconds_t)ms * 1000);
        }
        printf("victim: leaked %d blocks of 4096 bytes, one every %d ms\n", n, ms);
    } else {
        fprintf(stderr, "usage: victim-leak list|ring|stale-frame|no-frame-pointer|libc-helpers|libc-helper-jump|libc-helper-reentry|libc-wrapper-loader-locked|exit-loader-locked|cache|thread-stack|suppressed|suppressed-file|signal|unreadable-root|two-paths|no-vm-readv|growth-dip|many-stacks [N]|main-exits-first|fork-children [N]|check-under-setxid [N]|check-under-signal-flood [N]|checks-while-euid-flips [N]|fork-during-install [late]|fork-during-checks [SIG S]|signal-storm [T B]|thread-exits|tree|cyclic-list|suppressed-tree|detached-threads [N]|gen-suppressions [first|all]|gen-suppressions-round-trip|check-while-cancelled|no-fds-left|no-fds-at-exit|reserved-region|sampled-register|freed-tail|leak-as-nobody|growth [MS N]\n");
        return 2;
    }
    return 0;
}
