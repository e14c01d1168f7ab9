// victim-c privilege-drop MODE: a root program that gives up root while it
// has a thread of its own running, then checks in /proc/self/task that every
// thread — its own worker and any Faultline thread — now has the new ids and
// no capability the main thread no longer has.
//
// MODE keepcaps is setpriv's order (util-linux, also container entrypoints):
// PR_SET_KEEPCAPS 1, capset (all permitted made effective), setresuid,
// capset again (the uid change cleared the effective set), setresgid,
// setgroups, then drop every capability and KEEPCAPS. KEEPCAPS and the
// capability sets belong to one thread, while glibc applies each set*id
// call to every thread and aborts (__nptl_setxid_error) when their results
// differ: a thread that lost CAP_SETGID at setresuid made setresgid abort.
// So the worker takes each of those per-thread steps too, as a correct
// multi-threaded program must; Faultline's threads cannot be asked to.
// MODE raw does the same with KEEPCAPS and capset as raw system calls (as a
// program that bypasses libc would), then one no-op setresuid. MODE plain
// is the usual order without KEEPCAPS: setgroups, setresgid, setresuid.
// MODE queued: main drops CAP_NET_RAW by raw capset and makes a no-op
// setresuid for Faultline's threads to follow, while another thread's
// setresuid is held for 4 s by a third sitting in vfork (glibc's broadcast
// waits for every thread); main's call waits its turn behind it.
#include <dirent.h>
#include <grp.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define NOBODY 65534

/// glibc exports capset but declares it nowhere (libcap's header does).
extern int capset(cap_user_header_t header, const cap_user_data_t data);

static int g_raw;  // MODE raw: KEEPCAPS and capset by raw system call

static void die(const char *what) {
    perror(what);
    exit(3);
}

static void set_keepcaps(int on) {
    long r = g_raw ? syscall(SYS_prctl, PR_SET_KEEPCAPS, on, 0, 0, 0) : prctl(PR_SET_KEEPCAPS, on, 0, 0, 0);
    if (r != 0) die("victim: PR_SET_KEEPCAPS");
}

// Sets the calling thread's capabilities: every permitted one effective
// too (`effective`), or none at all.
static void set_caps(int effective) {
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct d[2];
    if (syscall(SYS_capget, &h, d) != 0) die("victim: capget");
    for (int i = 0; i < 2; i++) {
        d[i].effective = effective ? d[i].permitted : 0;
        if (!effective) d[i].permitted = d[i].inheritable = 0;
    }
    long r = g_raw ? syscall(SYS_capset, &h, d) : capset(&h, d);
    if (r != 0) die("victim: capset");
}

/// A per-thread step main takes and has the worker take too.
enum step { STEP_NONE, STEP_KEEPCAPS_ON, STEP_CAPS_EFFECTIVE, STEP_CAPS_NONE, STEP_KEEPCAPS_OFF, STEP_QUIT };

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_changed = PTHREAD_COND_INITIALIZER;
static enum step g_step = STEP_NONE;  // posted by main, STEP_NONE once done

static void take_step(enum step s) {
    switch (s) {
    case STEP_KEEPCAPS_ON: set_keepcaps(1); break;
    case STEP_CAPS_EFFECTIVE: set_caps(1); break;
    case STEP_CAPS_NONE: set_caps(0); break;
    case STEP_KEEPCAPS_OFF: set_keepcaps(0); break;
    default: break;
    }
}

// The program's own thread: takes each step main posts, until STEP_QUIT.
static void *worker(void *unused) {
    pthread_setname_np(pthread_self(), "prog-worker");
    pthread_mutex_lock(&g_lock);
    for (;;) {
        while (g_step == STEP_NONE) pthread_cond_wait(&g_changed, &g_lock);
        enum step s = g_step;
        take_step(s);
        g_step = STEP_NONE;
        pthread_cond_broadcast(&g_changed);
        if (s == STEP_QUIT) break;
    }
    pthread_mutex_unlock(&g_lock);
    return unused;
}

// Takes step `s` on main, then on the worker (and waits for it).
static void both(enum step s) {
    take_step(s);
    pthread_mutex_lock(&g_lock);
    g_step = s;
    pthread_cond_broadcast(&g_changed);
    while (g_step != STEP_NONE) pthread_cond_wait(&g_changed, &g_lock);
    pthread_mutex_unlock(&g_lock);
}

// --- MODE queued ---------------------------------------------------------------

// Drops CAP_NET_RAW from the calling thread's sets by raw system call (no
// interposer sees it).
static void drop_net_raw(void) {
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct d[2];
    if (syscall(SYS_capget, &h, d) != 0) die("victim: capget");
    d[0].effective &= ~(1u << CAP_NET_RAW);
    d[0].permitted &= ~(1u << CAP_NET_RAW);
    d[0].inheritable &= ~(1u << CAP_NET_RAW);
    if (syscall(SYS_capset, &h, d) != 0) die("victim: capset");
}

// Sits in vfork for 4 s: the parent thread of a vfork runs no signal
// handler, glibc's SIGSETXID's included, until its child has exited.
static void *vfork_holder(void *unused) {
    pthread_setname_np(pthread_self(), "vfork-holder");
    pid_t pid = vfork();
    if (pid == 0) {
        // Only raw system calls in a vfork child (it borrows this stack).
        struct timespec ts = {4, 0};
        syscall(SYS_nanosleep, &ts, 0);
        syscall(SYS_exit, 0);
    }
    if (pid > 0) waitpid(pid, 0, 0);
    drop_net_raw();  // as every thread of the program does
    return unused;
}

// A setresuid that glibc holds until vfork-holder's child has exited.
static void *slow_setxid(void *unused) {
    pthread_setname_np(pthread_self(), "slow-setxid");
    if (setresuid((uid_t)-1, (uid_t)-1, (uid_t)-1) != 0) die("victim: setresuid(-1) on slow-setxid");
    drop_net_raw();
    return unused;
}

static void queued(void) {
    pthread_t holder, slow;
    if (pthread_create(&holder, 0, vfork_holder, 0) != 0) die("victim: pthread_create");
    usleep(200000);  // in vfork by then
    if (pthread_create(&slow, 0, slow_setxid, 0) != 0) die("victim: pthread_create");
    usleep(300000);  // inside its setresuid by then
    fprintf(stderr, "victim: dropping CAP_NET_RAW by raw capset, then setresuid(-1, -1, -1) behind slow-setxid's\n");
    drop_net_raw();
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (setresuid((uid_t)-1, (uid_t)-1, (uid_t)-1) != 0) die("victim: setresuid(-1)");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    fprintf(stderr, "victim: main's setresuid returned after %.1f s\n",
            (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    pthread_join(slow, 0);
    pthread_join(holder, 0);
}

/// The lines of a thread's status that must match the main thread's.
typedef struct {
    char name[32], uid[64], gid[64], groups[256];
    uint64_t inh, prm, eff;
} thread_creds;

static void copy_value(char *dst, size_t cap, const char *line) {
    while (*line == ' ' || *line == '\t') line++;
    size_t n = strcspn(line, "\n");
    if (n >= cap) n = cap - 1;
    memcpy(dst, line, n);
    dst[n] = 0;
}

static int read_creds(const char *tid, thread_creds *c) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%s/status", tid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    memset(c, 0, sizeof *c);
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "Name:", 5)) copy_value(c->name, sizeof c->name, line + 5);
        else if (!strncmp(line, "Uid:", 4)) copy_value(c->uid, sizeof c->uid, line + 4);
        else if (!strncmp(line, "Gid:", 4)) copy_value(c->gid, sizeof c->gid, line + 4);
        else if (!strncmp(line, "Groups:", 7)) copy_value(c->groups, sizeof c->groups, line + 7);
        else if (!strncmp(line, "CapInh:", 7)) c->inh = strtoull(line + 7, 0, 16);
        else if (!strncmp(line, "CapPrm:", 7)) c->prm = strtoull(line + 7, 0, 16);
        else if (!strncmp(line, "CapEff:", 7)) c->eff = strtoull(line + 7, 0, 16);
    }
    fclose(f);
    return 0;
}

// One line per thread; returns how many differ from main.
static int check_threads(void) {
    char self[16];
    snprintf(self, sizeof self, "%d", getpid());
    thread_creds main_c, c;
    if (read_creds(self, &main_c) != 0) die("victim: /proc/self/task");
    printf("victim: main: uid %s, gid %s, groups %s, CapPrm %016llx, CapEff %016llx\n", main_c.uid, main_c.gid,
           main_c.groups, (unsigned long long)main_c.prm, (unsigned long long)main_c.eff);
    DIR *d = opendir("/proc/self/task");
    if (!d) die("victim: /proc/self/task");
    int bad = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, self) || read_creds(e->d_name, &c) != 0) continue;
        // No more capabilities than main: none main lacks, in any set.
        int same = !strcmp(c.uid, main_c.uid) && !strcmp(c.gid, main_c.gid) && !strcmp(c.groups, main_c.groups) &&
                   !(c.inh & ~main_c.inh) && !(c.prm & ~main_c.prm) && !(c.eff & ~main_c.eff);
        printf("victim: thread %s: %s\n", c.name, same ? "same ids as main, no capability main lacks" : "DIFFERS");
        if (!same)
            printf("victim:   uid %s, gid %s, groups %s, CapInh %016llx, CapPrm %016llx, CapEff %016llx\n", c.uid,
                   c.gid, c.groups, (unsigned long long)c.inh, (unsigned long long)c.prm, (unsigned long long)c.eff);
        bad += !same;
    }
    closedir(d);
    return bad;
}

NOINLINE int victim_privilege_drop(const char *mode) {
    int keepcaps = mode && (!strcmp(mode, "keepcaps") || !strcmp(mode, "raw"));
    int is_queued = mode && !strcmp(mode, "queued");
    if (!keepcaps && !is_queued && !(mode && !strcmp(mode, "plain"))) {
        fprintf(stderr, "victim: privilege-drop needs keepcaps, raw, plain or queued\n");
        return 2;
    }
    g_raw = !strcmp(mode, "raw");
    if (geteuid() != 0) { fprintf(stderr, "victim: privilege-drop must run as root\n"); return 2; }
    if (is_queued) {
        queued();
        int differ = check_threads();
        printf("victim: %s\n", differ ? "some threads kept CAP_NET_RAW or other ids" : "every thread dropped CAP_NET_RAW with main");
        return differ ? 1 : 0;
    }
    pthread_t t;
    if (pthread_create(&t, 0, worker, 0) != 0) die("victim: pthread_create");
    // Named here too: the plain order posts no step, so the check could read
    // the thread's status before it named itself (found as "victim-c").
    pthread_setname_np(t, "prog-worker");
    gid_t groups[] = {NOBODY};
    if (keepcaps) {
        fprintf(stderr, "victim: dropping to uid %d in setpriv's order (%s)\n", NOBODY, g_raw ? "KEEPCAPS and capset by raw syscall" : "through libc");
        both(STEP_KEEPCAPS_ON);
        both(STEP_CAPS_EFFECTIVE);
        if (setresuid(NOBODY, NOBODY, NOBODY) != 0) die("victim: setresuid");
        both(STEP_CAPS_EFFECTIVE);  // setresuid cleared the effective set; KEEPCAPS kept the permitted one
        if (setresgid(NOBODY, NOBODY, NOBODY) != 0) die("victim: setresgid");
        if (setgroups(1, groups) != 0) die("victim: setgroups");
        both(STEP_CAPS_NONE);
        both(STEP_KEEPCAPS_OFF);
        // A raw capset passes no interposer: the next set*id call (here a
        // no-op one) is where Faultline's threads follow.
        if (g_raw && setresuid((uid_t)-1, (uid_t)-1, (uid_t)-1) != 0) die("victim: setresuid(-1)");
    } else {
        fprintf(stderr, "victim: dropping to uid %d: setgroups, setresgid, setresuid\n", NOBODY);
        if (setgroups(1, groups) != 0) die("victim: setgroups");
        if (setresgid(NOBODY, NOBODY, NOBODY) != 0) die("victim: setresgid");
        if (setresuid(NOBODY, NOBODY, NOBODY) != 0) die("victim: setresuid");
    }
    int bad = check_threads();
    both(STEP_QUIT);
    pthread_join(t, 0);
    printf("victim: %s\n", bad ? "some threads kept other ids or more capabilities" : "every thread dropped to uid 65534 with main");
    return bad ? 1 : 0;
}
