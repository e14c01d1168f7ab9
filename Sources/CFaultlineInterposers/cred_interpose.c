// Interposes glibc's set*id family, initgroups, capset and prctl so that
// Faultline's own threads follow the program's privilege changes
// (cred_mirror.h). Each goes on to the next definition (the other image's
// copy of these, or libc's) unchanged.
//
// The set*id family is what glibc 2.36 applies to every thread
// (INLINE_SETXID_SYSCALL → __nptl_setxid): setuid, setgid, seteuid, setegid,
// setreuid, setregid, setresuid, setresgid, setgroups. initgroups calls
// glibc's internal setgroups, which no interposer sees, so initgroups is
// interposed itself. setfsuid and setfsgid are per thread in glibc too and
// need nothing.
#include "cancel_off.h"
#include "cred_mirror.h"
#include "interpose_next.h"
#include "report_dir_drop.h"
#include "report_file.h"
#include "undumpable_hook.h"

#include <grp.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <unistd.h>

// What must be opened while the process is still dumpable, with a pending
// pthread_cancel kept from acting in our opens (openat is a cancellation
// point: crash.calls-while-cancelled ended inside setresuid).
static void before_undumpable(void) {
    int cancel = fl_cancel_off();
    fl_undumpable_coming();
    fl_report_dir_hold();
    fl_cancel_restore(cancel);
}

// A set*id interposer: what must be opened while the process is still
// dumpable is opened (undumpable_hook.h); own threads take the caller's
// capabilities and securebits, then the call goes on; a report directory
// the new ids can no longer reach is said there, once (report_dir_drop.h).
#define FL_SETXID(name, params, args)                                 \
    typedef int (*name##_fn) params;                                  \
    FL_EXPORT int name params {                                       \
        FL_NEXT(name##_fn, #name)                                     \
        before_undumpable();                                          \
        fl_cred_turn turn;                                            \
        fl_cred_mirror_before_setxid(&turn);                          \
        int rc = fl_cred_mirror_after_setxid(&turn, next args);       \
        if (rc == 0) fl_report_dir_after_setxid();                    \
        return rc;                                                    \
    }

FL_SETXID(setuid, (uid_t uid), (uid))
FL_SETXID(setgid, (gid_t gid), (gid))
FL_SETXID(seteuid, (uid_t uid), (uid))
FL_SETXID(setegid, (gid_t gid), (gid))
FL_SETXID(setreuid, (uid_t r, uid_t e), (r, e))
FL_SETXID(setregid, (gid_t r, gid_t e), (r, e))
FL_SETXID(setresuid, (uid_t r, uid_t e, uid_t s), (r, e, s))
FL_SETXID(setresgid, (gid_t r, gid_t e, gid_t s), (r, e, s))
FL_SETXID(setgroups, (size_t n, const gid_t *groups), (n, groups))
FL_SETXID(initgroups, (const char *user, gid_t group), (user, group))

/// capset changes one thread (the caller's, or — refused since Linux 2.6.24
/// — another's): on the caller's, own threads follow at once, so a dropped
/// capability does not stay on them. (glibc exports capset without
/// declaring it; libcap and libcap-ng call it.) The header is not read
/// here: a bad pointer must give EFAULT, as from the kernel, not SIGSEGV;
/// and a call for another thread fails (EPERM), so it mirrors nothing.
FL_EXPORT int capset(cap_user_header_t header, const cap_user_data_t data) {
    typedef int (*capset_fn)(cap_user_header_t, const cap_user_data_t);
    FL_NEXT(capset_fn, "capset")
    fl_cred_turn turn;
    fl_cred_mirror_before_change(&turn);
    return fl_cred_mirror_after_change(&turn, next(header, data));
}

/// prctl: PR_SET_KEEPCAPS and PR_SET_SECUREBITS are followed at once like
/// capset; PR_SET_DUMPABLE 0 first runs the undumpable hook
/// (undumpable_hook.h); every other option passes straight on. The bounding set
/// (PR_CAPBSET_DROP) and the ambient set (PR_CAP_AMBIENT) are not
/// followed: they act only at execve, which own threads never call.
FL_EXPORT int prctl(int option, ...) {
    // Five arguments, as glibc's own prctl reads them (unused ones are
    // whatever the registers held; the kernel ignores them).
    va_list ap;
    va_start(ap, option);
    unsigned long a2 = va_arg(ap, unsigned long), a3 = va_arg(ap, unsigned long);
    unsigned long a4 = va_arg(ap, unsigned long), a5 = va_arg(ap, unsigned long);
    va_end(ap);
    typedef int (*prctl_fn)(int, ...);
    FL_NEXT(prctl_fn, "prctl")
    if (option == PR_SET_DUMPABLE && a2 == 0) before_undumpable();
    if (option != PR_SET_KEEPCAPS && option != PR_SET_SECUREBITS) return next(option, a2, a3, a4, a5);
    fl_cred_turn turn;
    fl_cred_mirror_before_change(&turn);
    return fl_cred_mirror_after_change(&turn, next(option, a2, a3, a4, a5));
}
