// victim-c sample-signal-*: the program's own action on SIGRTMIN+8, the
// agent's sample signal, taken as the kernel takes it without Faultline
// (docs/agent.md, "Runtimes that take every signal"). Each delivery is the
// program's own: queued to the main thread, or to the process as
// `kill -s SIGRTMIN+8` does.
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_int g_runs;
static sigset_t g_mask_inside;

static void count_run(int sig) {
    (void)sig;
    pthread_sigmask(SIG_BLOCK, 0, &g_mask_inside);
    atomic_fetch_add(&g_runs, 1);
}

// Queues SIGRTMIN+8 to the main thread, which has it open: delivered before
// pthread_sigqueue returns.
static void queue_to_self(void) {
    union sigval v = {.sival_int = 1};
    pthread_sigqueue(pthread_self(), SIGRTMIN + 8, v);
}

static const char *disposition_name(const struct sigaction *act) {
    if (act->sa_handler == SIG_DFL) return "SIG_DFL";
    if (act->sa_handler == SIG_IGN) return "SIG_IGN";
    return act->sa_handler == count_run ? "its own handler" : "another handler";
}

// `how`: sysv_signal, or sigaction (SA_RESETHAND). One delivery runs the
// handler and leaves SIG_DFL; the second ends the process by the signal.
int victim_sample_signal_oneshot(const char *how) {
    if (!how) how = "";
    if (!strcmp(how, "sysv_signal")) {
        sysv_signal(SIGRTMIN + 8, count_run);
    } else if (!strcmp(how, "sigaction")) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = count_run;
        sa.sa_flags = SA_RESETHAND;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGRTMIN + 8, &sa, 0);
    } else {
        fprintf(stderr, "victim: sample-signal-oneshot needs 'sysv_signal' or 'sigaction', not '%s'\n", how);
        return 2;
    }
    queue_to_self();
    struct sigaction back;
    sigaction(SIGRTMIN + 8, 0, &back);
    fprintf(stderr, "victim: handler ran %d time(s); the action reads back as %s\n", atomic_load(&g_runs),
            disposition_name(&back));
    fprintf(stderr, "victim: queueing SIGRTMIN+8 again\n");
    queue_to_self();
    fprintf(stderr, "victim: still running after the second SIGRTMIN+8 (handler ran %d time(s))\n", atomic_load(&g_runs));
    return 0;
}

// `how`: defer (sa_mask SIGUSR1) or nodefer (the same with SA_NODEFER).
// Says which signals were blocked while the handler ran.
int victim_sample_signal_mask(const char *how) {
    if (!how || (strcmp(how, "defer") && strcmp(how, "nodefer"))) {
        fprintf(stderr, "victim: sample-signal-mask needs 'defer' or 'nodefer'\n");
        return 2;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = count_run;
    sa.sa_flags = strcmp(how, "nodefer") ? 0 : SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGUSR1);
    sigaction(SIGRTMIN + 8, &sa, 0);
    queue_to_self();
    fprintf(stderr, "victim: handler ran %d time(s) with SIGUSR1 %s, SIGUSR2 %s, SIGRTMIN+8 %s\n", atomic_load(&g_runs),
            sigismember(&g_mask_inside, SIGUSR1) ? "blocked" : "open",
            sigismember(&g_mask_inside, SIGUSR2) ? "blocked" : "open",
            sigismember(&g_mask_inside, SIGRTMIN + 8) ? "blocked" : "open");
    return 0;
}

// `how`: never (the program leaves SIGRTMIN+8 alone), dfl (sets a handler,
// then SIG_DFL) or ign (SIG_IGN). Sends SIGRTMIN+8 to the whole process, as
// `kill -s SIGRTMIN+8 PID` does, and says whether it is still running.
int victim_sample_signal_default(const char *how) {
    if (!how) how = "";
    if (!strcmp(how, "dfl")) {
        signal(SIGRTMIN + 8, count_run);
        signal(SIGRTMIN + 8, SIG_DFL);
    } else if (!strcmp(how, "ign")) {
        signal(SIGRTMIN + 8, SIG_IGN);
    } else if (strcmp(how, "never")) {
        fprintf(stderr, "victim: sample-signal-default needs 'never', 'dfl' or 'ign', not '%s'\n", how);
        return 2;
    }
    fprintf(stderr, "victim: sending SIGRTMIN+8 to the process\n");
    kill(getpid(), SIGRTMIN + 8);
    usleep(200000);  // any thread may take it, Faultline's among them
    fprintf(stderr, "victim: still running 200 ms after SIGRTMIN+8\n");
    return 0;
}

// Blocks SIGRTMIN+8 (left at SIG_DFL), sends it to the process and takes
// it with sigtimedwait (2 s), as programs that consume a real-time signal
// synchronously do. Exit 3 when it did not arrive.
int victim_sample_signal_sigwait(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGRTMIN + 8);
    pthread_sigmask(SIG_BLOCK, &set, 0);
    fprintf(stderr, "victim: sending SIGRTMIN+8 to the process, which blocks it\n");
    kill(getpid(), SIGRTMIN + 8);
    struct timespec wait = {2, 0};
    siginfo_t si;
    int got = sigtimedwait(&set, &si, &wait);
    if (got != SIGRTMIN + 8) {
        fprintf(stderr, "victim: sigtimedwait returned %d (%s)\n", got, strerror(errno));
        return 3;
    }
    fprintf(stderr, "victim: sigtimedwait took SIGRTMIN+8 sent by %s\n", si.si_pid == getpid() ? "itself" : "another process");
    return 0;
}
