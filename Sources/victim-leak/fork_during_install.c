// victim-leak fork-during-install (fork_during_install.h). The shim installs
// the handler of FAULTLINE_LEAK_STOP_SIGNAL (SIGRTMIN+10 by default) the
// first time a scan or a set*id call needs it, one thread at a time; a
// child forked in the middle inherited that install's busy word with no
// thread of its own to clear it, and its exit check waited for ever.
#include "fork_during_install.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static atomic_int g_armed, g_installing;

/// This program's sigaction: the executable comes first in symbol lookup,
/// so the shim's own call lands here. Armed, an install of a handler for
/// SIGRTMIN+10 takes 300 ms, long enough for main to fork in the middle;
/// every other call passes straight on.
int sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
    static int (*next)(int, const struct sigaction *, struct sigaction *);
    if (!next) next = (int (*)(int, const struct sigaction *, struct sigaction *))dlsym(RTLD_NEXT, "sigaction");
    if (atomic_load(&g_armed) && act && sig == SIGRTMIN + 10 && act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN) {
        atomic_store(&g_installing, 1);
        struct timespec ts = {0, 300 * 1000000};
        nanosleep(&ts, 0);
    }
    return next(sig, act, old);
}

static void *dropper(void *unused) {
    if (seteuid(65534) != 0 || seteuid(0) != 0) perror("victim: seteuid");
    return unused;
}

int victim_fork_during_install(void) {
    if (geteuid() != 0) { fprintf(stderr, "victim: fork-during-install must run as root\n"); return 2; }
    atomic_store(&g_armed, 1);
    pthread_t t;
    if (pthread_create(&t, 0, dropper, 0) != 0) { perror("victim: pthread_create"); return 2; }
    // Without the shim (or its leak thread) nothing installs: fork anyway.
    for (int i = 0; i < 2000 && !atomic_load(&g_installing); i++) usleep(1000);
    printf("victim: forking %s the stop signal's handler is being installed\n", atomic_load(&g_installing) ? "while" : "(no install seen) before");
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) { perror("victim: fork"); return 2; }
    if (pid == 0) exit(0);  // the child's exit check
    int status = 0;
    waitpid(pid, &status, 0);
    pthread_join(t, 0);
    int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    printf("victim: child %s\n", ok ? "exited with 0" : "did not exit with 0");
    return ok ? 0 : 1;
}
