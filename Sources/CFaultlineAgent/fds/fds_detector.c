#include "fds_detector.h"
#include "fd_report.h"
#include "fd_table.h"
#include "exe_match.h"

#include <pthread.h>

// A forked child holds its parent's descriptors by inheritance: only what
// it opens itself is its own.
static void after_fork_child(void) {
    fl_fd_table_forget_all();
    fl_fd_report_forked();
}

int fl_fds_install(void) {
    if (fl_fd_table_on()) return 0;
    // A program whose leaks are not the user's (faultline exec names the
    // system's tools: bash keeps its script as fd 255, ld.gold its inputs):
    // nothing followed, no exit check, as the shim skips its leak check.
    if (fl_exe_matches_env("FAULTLINE_LEAK_CHECK_SKIP", 0)) return 0;
    if (fl_fd_report_init() != 0 || fl_fd_table_init() != 0) return -1;
    fl_fd_report_at_exit();
    static int once;  // a reinstall registers nothing twice
    if (!once++) pthread_atfork(0, 0, after_fork_child);
    return 0;
}

void fl_fds_uninstall(void) { fl_fd_table_stop(); }
