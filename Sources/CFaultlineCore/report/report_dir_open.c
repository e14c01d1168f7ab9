#include "tool_log.h"
#include "report_dir_open.h"
#include "fl_options.h"
#include "report_file.h"
#include "sigsafe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void fl_report_dir_say_refused(const char *path, int err) {
    char line[512];
    size_t n = fl_strlcpy(line, "faultline: cannot write reports into FAULTLINE_REPORT_DIR=", sizeof line);
    // Cut, so that why and what to do still fit in the line.
    n += fl_strlcpy_cut(line + n, path, sizeof line - n, 160);
    n += fl_strlcpy(line + n, ": ", sizeof line - n);
    const char *why = strerrordesc_np(err);  // a static table: no allocation, no locale
    n += fl_strlcpy(line + n, why ? why : "unknown error", sizeof line - n);
    if (err == EACCES || err == EPERM) {
        // The common cause: a program that changed user below a directory
        // made by (and for) the user who started it.
        char uid[24];
        uid[fl_fmt_u64(uid, (unsigned long long)geteuid())] = 0;
        n += fl_strlcpy(line + n, " for uid ", sizeof line - n);
        n += fl_strlcpy(line + n, uid, sizeof line - n);
    }
    n += fl_strlcpy(line + n, "; this process's reports will go to stderr (check the path and its permissions)", sizeof line - n);
    if (n > sizeof line - 2) n = sizeof line - 2;  // the newline always fits
    line[n++] = '\n';
    fl_log_write(line, n);
}

// Makes `path` if missing, opens it and checks that the calling thread's
// filesystem ids may create files in it: the fd, or -1 with errno set.
static int open_writable(const char *path) {
    int fd = -1;
    if (fl_mkdir_p(path) == 0) fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    // Opening needs only search and read; a report needs write too.
    if (fd >= 0 && faccessat(fd, ".", W_OK, AT_EACCESS) != 0) {
        int err = errno;
        close(fd);
        fd = -1;
        errno = err;
    }
    return fd;
}

// A program exec'd after a temporary drop (seteuid(65534) with real uid 0,
// then execve: the saved uid becomes 65534, the real one stays 0) starts at
// euid 65534 below a directory of root's: tried once more at the real ids,
// which the kernel lets a thread take as its filesystem ids without
// CAP_SETUID, and recorded as the directory's (fl_report_dir_opened_at) so
// each report switches to them. The thread's own ids come back at once.
static int open_at_real_ids(const char *path) {
    fl_fs_turn turn;
    fl_report_ids_take_real(&turn);
    int fd = open_writable(path), err = errno;
    if (fd >= 0) fl_report_dir_opened_at((long)getuid(), (long)getgid());
    fl_report_ids_give(&turn);
    errno = err;
    return fd;
}

// The uid that owns `path` when it is a symbolic link (trailing slashes
// ignored), else -1. Allocation-free: the path is copied to the stack.
static long link_owner(const char *path) {
    char p[4096];
    size_t n = fl_strlcpy(p, path, sizeof p);
    if (n >= sizeof p) return -1;
    while (n > 1 && p[n - 1] == '/') p[--n] = 0;
    struct stat st;
    return lstat(p, &st) == 0 && S_ISLNK(st.st_mode) ? (long)st.st_uid : -1;
}

// A folder named through a link another user owns is that user's choice of
// where this process writes (a link planted in /tmp by one user, followed
// by root): refused, as the kernel's protected_symlinks refuses it in
// sticky folders.
static int refuse_foreign_link(const char *path, int quiet) {
    long owner = link_owner(path);
    if (owner < 0 || owner == (long)geteuid()) return 0;
    if (quiet || fl_report_dir_refusal_said(path)) return 1;
    char line[512], num[24];
    size_t n = fl_strlcpy(line, "faultline: refusing FAULTLINE_REPORT_DIR=", sizeof line);
    n += fl_strlcpy_cut(line + n, path, sizeof line - n, 160);
    n += fl_strlcpy(line + n, ": it is a symbolic link owned by uid ", sizeof line - n);
    num[fl_fmt_u64(num, (unsigned long long)owner)] = 0;
    n += fl_strlcpy(line + n, num, sizeof line - n);
    n += fl_strlcpy(line + n, ", not by this process's uid ", sizeof line - n);
    num[fl_fmt_u64(num, (unsigned long long)geteuid())] = 0;
    n += fl_strlcpy(line + n, num, sizeof line - n);
    n += fl_strlcpy(line + n, "; this process's reports will go to stderr (name the folder itself)", sizeof line - n);
    if (n > sizeof line - 2) n = sizeof line - 2;
    line[n++] = '\n';
    fl_write_all(2, line, n);
    return 1;
}

int fl_report_dir_open(const char *path, int quiet) {
    if (refuse_foreign_link(path, quiet)) {
        errno = ELOOP;
        return -1;
    }
    int fd = open_writable(path);
    if (fd < 0 && (errno == EACCES || errno == EPERM) && (getuid() != geteuid() || getgid() != getegid())) {
        int err = errno;
        fd = open_at_real_ids(path);
        if (fd < 0) errno = err;  // the reason at the ids the process runs at
    }
    if (fd < 0 && !quiet && !fl_report_dir_refusal_said(path)) fl_report_dir_say_refused(path, errno);
    return fd;
}

int fl_report_dir_refusal_said(const char *path) {
    const char *said = fl_option_value(FL_OPT_REPORT_DIR_REFUSED);  // no allocation
    return said && fl_streq(said, path);
}
