// victim-leak fork-during-install (fork_during_install.h). The shim installs
// the handler of FAULTLINE_LEAK_STOP_SIGNAL (SIGRTMIN+10 by default) the
// first time a scan or a set*id call needs it, one thread at a time behind
// a word that holds the installing thread's id. Two ways a fork in the
// middle went wrong, each forced here by holding the install still until
// the fork has happened (or is seen waiting for the install):
// - before the kernel has the handler: the child inherited the word held,
//   with no thread of its own to clear it, and its exit check waited for
//   ever (the shim's child fork handler clears it; its prepare handler
//   waits for the install);
// - after the kernel has the handler, before the shim marked the install
//   done: the child installed again, saving the shim's own handler as the
//   program's, so the program's handler was lost and the shim's called
//   itself until the stack ran out (only the prepare handler's wait helps).
#include "fork_during_install.h"
#include "victim_leak_check.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static atomic_int g_armed, g_late, g_fork_entered, g_forked;
static sem_t g_installing;
static volatile sig_atomic_t g_own_handler_ran;

// Whether the main thread (whose id is the process id) is asleep: state S
// in /proc/self/task/<pid>/stat, the field after the parenthesised name.
static int main_asleep(void) {
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)getpid());
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    const char *close_paren = strrchr(buf, ')');
    return close_paren && close_paren[1] == ' ' && close_paren[2] == 'S';
}

// Holds the install still until main's fork has passed (this program's
// parent fork handler ran), or until main, inside fork, sleeps: the shim's
// prepare handler waiting for this very install. Nothing else in fork
// sleeps between this program's prepare handler, which runs first, and
// the child's creation.
static void hold_until_forked(void) {
    sem_post(&g_installing);
    while (!atomic_load(&g_forked) && !(atomic_load(&g_fork_entered) && main_asleep())) {
        struct timespec ts = {0, 100 * 1000};  // a poll, not a wait for anything
        nanosleep(&ts, 0);
    }
}

/// This program's sigaction: the executable comes first in symbol lookup,
/// so the shim's own call lands here. Armed, an install of a handler for
/// SIGRTMIN+10 is held (hold_until_forked) before or, `late`, after it
/// reaches the kernel; every other call passes straight on.
int sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
    static int (*next)(int, const struct sigaction *, struct sigaction *);
    if (!next) next = (int (*)(int, const struct sigaction *, struct sigaction *))dlsym(RTLD_NEXT, "sigaction");
    int held = atomic_load(&g_armed) && act && sig == SIGRTMIN + 10 && act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN;
    if (held && !atomic_load(&g_late)) hold_until_forked();
    int rc = next(sig, act, old);
    if (held && atomic_load(&g_late)) hold_until_forked();
    return rc;
}

// Registered after the shim's: its prepare handler runs before the
// shim's, its parent and child handlers after the shim's.
static void fork_entered(void) { atomic_store(&g_fork_entered, 1); }
static void forked_parent(void) { atomic_store(&g_forked, 1); }
static void forked_child(void) { atomic_store(&g_armed, 0); }

static void own_handler(int sig) {
    (void)sig;
    g_own_handler_ran = 1;
}

static void *dropper(void *unused) {
    if (seteuid(65534) != 0 || seteuid(0) != 0) perror("victim: seteuid");
    return unused;
}

// The child, late: installs (an on-demand check) and takes the signal,
// which the shim's handler passes on to the program's.
static int late_child(void) {
    victim_leak_check_fn check = victim_leak_check();
    if (check) check();
    raise(SIGRTMIN + 10);
    return g_own_handler_ran ? 0 : 3;
}

// Waits up to 10 s for the child to end: 1 with its status, else 0.
static int wait_for_child(pid_t pid, int *status) {
    for (int i = 0; i < 1000; i++) {
        if (waitpid(pid, status, WNOHANG) == pid) return 1;
        usleep(10 * 1000);
    }
    return 0;
}

int victim_fork_during_install(int late) {
    if (geteuid() != 0) { fprintf(stderr, "victim: fork-during-install must run as root\n"); return 2; }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = own_handler;
    if (late && sigaction(SIGRTMIN + 10, &sa, 0) != 0) { perror("victim: sigaction"); return 2; }
    if (sem_init(&g_installing, 0, 0) != 0 || pthread_atfork(fork_entered, forked_parent, forked_child) != 0) return 2;
    atomic_store(&g_late, late);
    atomic_store(&g_armed, 1);
    pthread_t t;
    if (pthread_create(&t, 0, dropper, 0) != 0) { perror("victim: pthread_create"); return 2; }
    // Without the shim (or its leak thread) nothing installs: fork anyway.
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    int installing = sem_timedwait(&g_installing, &until) == 0;
    printf("victim: forking %s the stop signal's handler is being installed%s\n", installing ? "while" : "(no install seen) before",
           late ? " (the kernel has it already)" : "");
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) { perror("victim: fork"); return 2; }
    if (pid == 0) exit(late ? late_child() : 0);  // then the child's exit check
    int status = 0;
    if (!wait_for_child(pid, &status)) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        printf("victim: child did not end within 10 s (its exit check or the signal's handler never returned)\n");
        return 1;
    }
    pthread_join(t, 0);
    int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (ok) printf("victim: child exited with 0%s\n", late ? ", its own handler ran" : "");
    else if (WIFSIGNALED(status)) printf("victim: child killed by signal %d\n", WTERMSIG(status));
    else printf("victim: child exited with %d%s\n", WEXITSTATUS(status), WEXITSTATUS(status) == 3 ? " (its own handler did not run)" : "");
    return ok ? 0 : 1;
}
