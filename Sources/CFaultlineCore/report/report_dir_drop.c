#include "report_dir_drop.h"
#include "environ_pin.h"
#include "report_dir_open.h"
#include "report_file.h"
#include "sigsafe.h"
#include "thread_count.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

// "FAULTLINE_REPORT_DIR_REFUSED=<path>": the environment keeps pointing here.
static char g_entry[sizeof FL_REPORT_DIR_REFUSED_ENV + PATH_MAX];

// 0 when a report could be created in the directory now, else the errno
// value that says why not (-1: unknown, the kernel has no faccessat2).
static int refused_now(void) {
    fl_fs_turn turn;
    fl_report_ids_take(&turn);
    errno = 0;
    int fd = fl_report_dir(), err = fd < 0 ? errno : 0;
    // The raw call: glibc emulates faccessat's AT_EACCESS without
    // faccessat2 from the effective uid, not the filesystem ids taken above.
    if (fd >= 0 && syscall(SYS_faccessat2, fd, ".", W_OK, AT_EACCESS) != 0) err = errno == ENOSYS ? -1 : errno;
    if (fd >= 0) fl_report_dir_done(fd);
    fl_report_ids_give(&turn);
    return err;
}

void fl_report_dir_after_setxid(void) {
    int saved = errno;
    const char *path = fl_report_dir_path_opened();
    // With other threads, getenv could meet a concurrent setenv too.
    if (!path || !path[0] || fl_program_threads() != 1) { errno = saved; return; }
    if (fl_report_dir_refusal_said(path)) { errno = saved; return; }
    int err = refused_now();
    if (err == EACCES || err == EPERM) {
        size_t n = fl_strlcpy(g_entry, FL_REPORT_DIR_REFUSED_ENV "=", sizeof g_entry);
        // A path cut short would mark another directory: left unmarked.
        if (!path[fl_strlcpy(g_entry + n, path, sizeof g_entry - n)]) {
            fl_report_dir_say_refused(path, err);
            fl_environ_put(g_entry);
        }
    }
    errno = saved;
}
