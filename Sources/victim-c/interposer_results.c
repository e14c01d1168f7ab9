// victim-c interposer-results: calls Faultline interposes (capset, prctl,
// the set*id family, unshare, setns) with arguments the kernel refuses, and
// compares each result and errno with the same call made by raw syscall,
// which no interposer sees; a no-op setresuid and prctl must leave errno
// alone. Under Faultline, capset with a bad header pointer once read the
// header itself and died of SIGSEGV where the kernel returns EFAULT.
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/// glibc exports capset but declares it nowhere (libcap's header does).
extern int capset(cap_user_header_t header, const cap_user_data_t data);
int setns(int fd, int nstype);
int unshare(int flags);

static int g_differ;

/// Prints one comparison: `what`, the wrapper's rc and errno, the raw
/// call's; counts it when they differ.
static void compare(const char *what, long rc, int err, long raw_rc, int raw_err) {
    int same = rc == raw_rc && (rc != -1 || err == raw_err);
    printf("victim: %s: %ld (errno %d), raw %ld (errno %d)%s\n", what, rc, err, raw_rc, raw_err, same ? "" : " DIFFERS");
    g_differ += !same;
}

#define COMPARE(what, call, raw)                   \
    do {                                           \
        errno = 0;                                 \
        long rc_ = (long)(call);                   \
        int err_ = errno;                          \
        errno = 0;                                 \
        long raw_ = (long)(raw);                   \
        compare(what, rc_, err_, raw_, errno);     \
    } while (0)

/// Succeeds without changing anything: must return 0 and keep errno.
#define KEEPS_ERRNO(what, call)                                                    \
    do {                                                                           \
        errno = 4242;                                                              \
        long rc_ = (long)(call);                                                   \
        int ok_ = rc_ == 0 && errno == 4242;                                       \
        printf("victim: %s: %ld, errno %s\n", what, rc_, ok_ ? "kept" : "changed"); \
        g_differ += !ok_;                                                          \
    } while (0)

int victim_interposer_results(void) {
    struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {{0}};
    struct __user_cap_header_struct bad_version = {0x1234, 0}, other = {_LINUX_CAPABILITY_VERSION_3, 1};
    cap_user_header_t wild = (cap_user_header_t)(uintptr_t)8;
    COMPARE("capset(bad header pointer)", capset(wild, data), syscall(SYS_capset, wild, data));
    COMPARE("capset(NULL header)", capset(0, data), syscall(SYS_capset, 0, data));
    COMPARE("capset(bad version)", capset(&bad_version, data), (bad_version.version = 0x1234, syscall(SYS_capset, &bad_version, data)));
    COMPARE("capset(another process)", capset(&other, data), syscall(SYS_capset, &other, data));
    COMPARE("prctl(PR_SET_KEEPCAPS, 5)", prctl(PR_SET_KEEPCAPS, 5, 0, 0, 0), syscall(SYS_prctl, PR_SET_KEEPCAPS, 5, 0, 0, 0));
    COMPARE("prctl(PR_SET_SECUREBITS, 0xffff)", prctl(PR_SET_SECUREBITS, 0xffff, 0, 0, 0),
            syscall(SYS_prctl, PR_SET_SECUREBITS, 0xffff, 0, 0, 0));
    COMPARE("setgroups(bad list)", setgroups(1, (gid_t *)(uintptr_t)8), syscall(SYS_setgroups, 1, (gid_t *)(uintptr_t)8));
    COMPARE("unshare(-1)", unshare(-1), syscall(SYS_unshare, -1));
    COMPARE("setns(-1, CLONE_NEWUSER)", setns(-1, CLONE_NEWUSER), syscall(SYS_setns, -1, CLONE_NEWUSER));
    KEEPS_ERRNO("setresuid(-1, -1, -1)", setresuid(-1, -1, -1));
    KEEPS_ERRNO("prctl(PR_SET_KEEPCAPS, 0)", prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0));
    if (g_differ) {
        printf("victim: %d call(s) differ\n", g_differ);
        return 1;
    }
    printf("victim: every interposed call returned what the kernel returns\n");
    return 0;
}
