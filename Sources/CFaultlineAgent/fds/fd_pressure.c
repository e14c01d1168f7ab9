#include "fd_pressure.h"
#include "env_option.h"
#include "fd_report.h"
#include "fd_table.h"

#include <stdatomic.h>
#include <sys/resource.h>

static long g_soft;
static int g_mark;          // followed fds at which to warn; 0: never
static atomic_int g_warned;

void fl_fd_pressure_init(void) {
    int percent = fl_env_int(FL_OPT_FD_WARN_PERCENT);
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return;
    g_soft = (long)rl.rlim_cur;
    long mark = g_soft * percent / 100;
    g_mark = mark < 1 ? 1 : mark > FL_FDS_MAX ? FL_FDS_MAX : (int)mark;
}

void fl_fd_pressure_check(int fd) {
    (void)fd;
    if (!g_mark || fl_fd_table_count() < g_mark || atomic_exchange(&g_warned, 1)) return;
    fl_fd_report_write("fd_pressure", g_soft);
}
