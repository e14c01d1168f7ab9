// reraise-from-handler [siginfo] [altstack]: a SIGSEGV handler installed
// after the agent's (as python3's faulthandler installs its own), which
// says so, puts the handler it replaced back and re-raises the signal with
// raise(); the agent then sees SI_TKILL from this process, with the fault
// itself in the kernel's frame on the stack. `siginfo`: an SA_SIGINFO
// handler (the kernel writes a siginfo in the frame); `altstack`: on an
// alternate stack of its own; `default`: puts SIG_DFL back instead, by
// sigaction (node's way for a fault it does not own), or `default-signal`:
// by signal(sig, SIG_DFL) (the classic way). raise-segv: SIGSEGV raised
// with no fault.
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void victim_null_deref(void);  // main.c

static struct sigaction g_replaced;
/// What the handler puts back before it re-raises: "replaced" (the
/// handler it replaced), "default" or "default-signal".
static const char *g_put_back = "replaced";

static void reraise(int sig) {
    static const char said[] = "victim: handler caught the fault; re-raising it\n";
    write(2, said, sizeof said - 1);
    if (!strcmp(g_put_back, "default")) {
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigaction(sig, &dfl, 0);
    } else if (!strcmp(g_put_back, "default-signal")) {
        signal(sig, SIG_DFL);
    } else {
        sigaction(sig, &g_replaced, 0);
    }
    // What a query reads now: the action the handler just set.
    struct sigaction now;
    static const char reads_default[] = "victim: SIGSEGV's action reads SIG_DFL\n";
    if (strcmp(g_put_back, "replaced") && sigaction(sig, 0, &now) == 0 && now.sa_handler == SIG_DFL)
        write(2, reads_default, sizeof reads_default - 1);
    raise(sig);
}

static void reraise_siginfo(int sig, siginfo_t *info, void *uc) {
    (void)info, (void)uc;
    reraise(sig);
}

void victim_reraise_from_handler(int with_siginfo, int on_altstack, const char *put_back) {
    g_put_back = put_back;
    if (on_altstack) {
        stack_t st = {.ss_sp = malloc(1 << 16), .ss_size = 1 << 16};
        if (!st.ss_sp || sigaltstack(&st, 0) != 0) { perror("victim: sigaltstack"); exit(3); }
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    if (with_siginfo) sa.sa_sigaction = reraise_siginfo, sa.sa_flags = SA_SIGINFO;
    else sa.sa_handler = reraise;
    // Putting the default back, the handler blocks its signal as node's
    // does: the re-raise waits until it returns.
    if (!strcmp(put_back, "replaced")) sa.sa_flags |= SA_NODEFER;
    if (on_altstack) sa.sa_flags |= SA_ONSTACK;
    if (sigaction(SIGSEGV, &sa, &g_replaced) != 0) { perror("victim: sigaction"); exit(3); }
    victim_null_deref();
}

void victim_raise_segv(void) {
    fprintf(stderr, "victim: raising SIGSEGV with no fault\n");
    raise(SIGSEGV);
}

static void fault_on_usr1(int sig) {
    (void)sig;
    victim_null_deref();
}

// fault-in-signal-handler: a SIGUSR1 handler that stores through NULL; the
// report's stack passes the kernel's signal frame between the handler and
// the raise() it interrupted.
void victim_fault_in_signal_handler(void) {
    signal(SIGUSR1, fault_on_usr1);
    raise(SIGUSR1);
}
