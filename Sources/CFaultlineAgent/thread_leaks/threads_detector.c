#include "threads_detector.h"
#include "thread_growth.h"
#include "thread_records.h"
#include "thread_report.h"
#include "exe_match.h"

#include <pthread.h>

static void after_fork_child(void) { fl_thread_records_forget_all(); }

int fl_threads_detector_install(void) {
    if (fl_thread_leaks_on()) return 0;
    // Not in a program whose leaks are not the user's (fds_detector.c).
    if (fl_exe_matches_env("FAULTLINE_LEAK_CHECK_SKIP", 0)) return 0;
    fl_thread_growth_init();
    if (fl_thread_report_init() != 0 || fl_thread_records_init() != 0) return -1;
    fl_thread_report_at_exit();
    static int once;  // a reinstall registers nothing twice
    if (!once++) pthread_atfork(0, 0, after_fork_child);
    return 0;
}

void fl_threads_detector_uninstall(void) { fl_thread_records_stop(); }
