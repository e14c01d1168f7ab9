// Interposes unshare and setns so that the calls the kernel refuses in a
// multi-threaded process work in a program whose only other threads are
// Faultline's (solo_call.h). Every other call passes straight on to the
// next definition (the other image's copy, or libc's).
#include "interpose_next.h"
#include "solo_call.h"

#include <linux/magic.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>

/// unshare flags that need a thread group of one. The kernel adds
/// CLONE_THREAD to CLONE_NEWUSER and to CLONE_SIGHAND (which CLONE_VM
/// implies) and then refuses CLONE_THREAD, CLONE_SIGHAND and CLONE_VM in a
/// thread group of more than one (check_unshare_flags). CLONE_NEWNS and
/// CLONE_FS alone work: the caller gets an fs_struct of its own.
#define SOLO_UNSHARE_FLAGS (CLONE_NEWUSER | CLONE_THREAD | CLONE_SIGHAND | CLONE_VM)

/// Namespaces setns enters only in a single-threaded process: a user
/// namespace (userns_install: a thread group of one and an fs_struct no
/// other thread shares), a mount namespace (mntns_install: the fs_struct)
/// and a time namespace (timens_install: EUSERS). The others are per
/// thread, or act on children only.
#define SOLO_SETNS_TYPES (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWTIME)

typedef int (*unshare_fn)(int);
typedef int (*setns_fn)(int, int);

FL_EXPORT int unshare(int flags) {
    FL_NEXT(unshare_fn, "unshare")
    if (!(flags & SOLO_UNSHARE_FLAGS)) return next(flags);
    fl_solo_turn turn;
    fl_solo_enter(&turn, "unshare");
    int rc = next(flags);
    while (fl_solo_retry(&turn, rc)) rc = next(flags);
    fl_solo_leave(&turn, "unshare");
    return rc;
}

/// The namespaces setns(fd, nstype) would enter: `nstype` when given (a
/// namespace's type, or for a pidfd the set of them), else the type of the
/// namespace `fd` refers to, asked only of an nsfs file (another driver may
/// give the ioctl's number a meaning of its own); 0 when unknown.
static int setns_types(int fd, int nstype) {
    if (nstype) return nstype;
    struct statfs fs;
    if (fstatfs(fd, &fs) != 0 || fs.f_type != NSFS_MAGIC) return 0;
    int type = ioctl(fd, NS_GET_NSTYPE);  // Linux 4.11
    return type > 0 ? type : 0;
}

FL_EXPORT int setns(int fd, int nstype) {
    FL_NEXT(setns_fn, "setns")
    int saved = errno;
    int types = setns_types(fd, nstype);
    errno = saved;
    if (!(types & SOLO_SETNS_TYPES)) return next(fd, nstype);
    fl_solo_turn turn;
    fl_solo_enter(&turn, "setns");
    int rc = next(fd, nstype);
    while (fl_solo_retry(&turn, rc)) rc = next(fd, nstype);
    fl_solo_leave(&turn, "setns");
    return rc;
}
