// Cases for faultline_uninstall (issue 32): after uninstall the process is
// the program's again; a second install works like the first.
#include "faultline.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void own_segv(int sig) {
    (void)sig;
    static const char line[] = "victim: own SIGSEGV handler ran\n";
    write(2, line, sizeof line - 1);
    _exit(42);
}

static int install_or_say(void) {
    faultline_options options;
    memset(&options, 0, sizeof options);
    if (faultline_install(&options) == 0) return 0;
    fprintf(stderr, "victim-c-linked: %s\n", faultline_last_error());
    return 3;
}

/// Runs case `name` when it is one of these (never returns then); else 0.
int victim_uninstall_case(const char *name) {
    int own = strcmp(name, "uninstall-own-handler-back") == 0;
    if (!own && strcmp(name, "uninstall-then-crash") != 0 && strcmp(name, "reinstall") != 0) return 0;
    if (own) signal(SIGSEGV, own_segv);
    if (install_or_say() != 0) _exit(3);
    faultline_uninstall();
    if (faultline_is_installed()) { fprintf(stderr, "victim: still installed after uninstall\n"); _exit(4); }
    if (own) {
        struct sigaction old;
        sigaction(SIGSEGV, 0, &old);
        if (old.sa_handler != own_segv) { fprintf(stderr, "victim: SIGSEGV handler is not the program's\n"); _exit(5); }
        fprintf(stderr, "victim: sigaction reports the program's handler\n");
    }
    if (strcmp(name, "reinstall") == 0 && install_or_say() != 0) _exit(3);
    fprintf(stderr, "victim: raising SIGSEGV\n");
    raise(SIGSEGV);
    _exit(1);
}
