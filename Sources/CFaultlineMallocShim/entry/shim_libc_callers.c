// libc functions that allocate for their caller (strdup, asprintf, getline,
// realpath, fopen, …), wrapped so the blocks' stacks start at the caller.
// libc is built without frame pointers: with frame-pointer stacks a block
// from strdup had strdup as its only frame, the program's call site lost
// (AddressSanitizer intercepts the same functions for the same reason).
//
// A wrapper only marks its own frame (shim_self.caller_fp, the outermost
// one when they nest) and calls libc's function, whose malloc then records
// the stack from that frame: libc keeps doing the work, with its own
// semantics, errno and locking. Stepped aside, the mark is never read.
#include "interpose_next.h"
#include "shim_heap.h"
#include "shim_lookup.h"
#include "shim_stack.h"
#include "shim_thread.h"

#include <dirent.h>
#include <dlfcn.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <wchar.h>

#define SHIM_EXPORT __attribute__((visibility("default"), disable_tail_calls))

// libc's definition of `name`, cached in `*slot`.
#define next_fn shim_lookup_next_cached

// Runs `call` with this wrapper's frame as the start of allocation stacks,
// unless an outer wrapper already set one and this call comes from libc
// (one libc function calling another keeps the outer caller). A call from
// anywhere else while an outer one runs (a signal handler's strdup, a
// callback's) marks its own frame, and puts the outer mark back after.
// `ret` receives its result.
#define AS_CALLER(ret, call)                                                                \
    do {                                                                                    \
        uintptr_t outer_fp_ = shim_self.caller_fp, outer_ret_ = shim_self.caller_ret;       \
        uintptr_t ra_ = (uintptr_t)__builtin_return_address(0);                             \
        if (!outer_fp_ || !shim_in_libc(ra_)) {                                             \
            shim_self.caller_ret = ra_;                                                     \
            shim_self.caller_fp = (uintptr_t)__builtin_frame_address(0);                    \
        }                                                                                   \
        ret = (call);                                                                       \
        shim_self.caller_ret = outer_ret_;                                                  \
        shim_self.caller_fp = outer_fp_;                                                    \
    } while (0)

// Every wrapper's next definition is filled when the shim loads
// (FL_NEXT_SLOT: interpose_next.c's constructor), not on the wrapper's
// first call: dlsym takes the loader's lock, and a program's first wcsdup
// made while another thread held it (a dlopen whose constructor waits for
// this thread) hung. The lookup on first call stays for a call made before
// the constructor.

// A wrapper of `name` with parameters `params`, forwarding `args`.
#define WRAP(rtype, name, params, args)                                        \
    FL_NEXT_VAR(name)                                                          \
    SHIM_EXPORT rtype name params {                                            \
        rtype (*real) params = (rtype (*) params)next_fn(&next_##name, #name); \
        rtype r;                                                               \
        AS_CALLER(r, real args);                                               \
        return r;                                                              \
    }

/// Strings.
WRAP(char *, strdup, (const char *s), (s))
WRAP(char *, __strdup, (const char *s), (s))
WRAP(char *, strndup, (const char *s, size_t n), (s, n))
WRAP(char *, __strndup, (const char *s, size_t n), (s, n))
WRAP(wchar_t *, wcsdup, (const wchar_t *s), (s))
WRAP(int, vasprintf, (char **out, const char *fmt, va_list ap), (out, fmt, ap))
WRAP(int, __vasprintf_chk, (char **out, int flag, const char *fmt, va_list ap), (out, flag, fmt, ap))
/// Lines.
WRAP(ssize_t, getdelim, (char **line, size_t *cap, int delim, FILE *f), (line, cap, delim, f))
WRAP(ssize_t, __getdelim, (char **line, size_t *cap, int delim, FILE *f), (line, cap, delim, f))
/// Paths.
#if defined(__x86_64__)
// realpath has two versions on x86_64: GLIBC_2.3 (a NULL buffer: allocated)
// and GLIBC_2.2.5 (a NULL buffer: EINVAL). One unversioned wrapper caught
// both references and called the default, so a program linked against the
// old one got a block where it expects EINVAL. Each version wraps its own
// (shim.map defines the version names).
static void *next_realpath_old, *next_realpath_new;
static char *call_realpath(void **slot, const char *version, const char *path, char *resolved) {
    char *(*real)(const char *, char *) = (char *(*)(const char *, char *))__atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (!real) {
        real = (char *(*)(const char *, char *))dlvsym(RTLD_NEXT, "realpath", version);
        __atomic_store_n(slot, (void *)real, __ATOMIC_RELEASE);
    }
    char *r;
    AS_CALLER(r, real(path, resolved));
    return r;
}
// Each wrapper marks its own frame; call_realpath's mark is taken when
// this one's is not set yet, which its caller's is: AS_CALLER nests.
SHIM_EXPORT char *shim_realpath_new(const char *path, char *resolved) {
    char *r;
    AS_CALLER(r, call_realpath(&next_realpath_new, "GLIBC_2.3", path, resolved));
    return r;
}
SHIM_EXPORT char *shim_realpath_old(const char *path, char *resolved) {
    char *r;
    AS_CALLER(r, call_realpath(&next_realpath_old, "GLIBC_2.2.5", path, resolved));
    return r;
}
__asm__(".symver shim_realpath_new, realpath@@GLIBC_2.3");
__asm__(".symver shim_realpath_old, realpath@GLIBC_2.2.5");
#else
WRAP(char *, realpath, (const char *path, char *resolved), (path, resolved))
#endif
WRAP(char *, canonicalize_file_name, (const char *path), (path))
WRAP(char *, getcwd, (char *buf, size_t size), (buf, size))
WRAP(char *, get_current_dir_name, (void), ())
/// Streams and directories: a FILE or DIR never closed is a leak at its
/// open.
WRAP(FILE *, fopen, (const char *path, const char *mode), (path, mode))
WRAP(FILE *, fopen64, (const char *path, const char *mode), (path, mode))
WRAP(FILE *, fdopen, (int fd, const char *mode), (fd, mode))
WRAP(FILE *, open_memstream, (char **buf, size_t *size), (buf, size))
WRAP(DIR *, opendir, (const char *path), (path))
WRAP(DIR *, fdopendir, (int fd), (fd))
/// Name lookups.
WRAP(int, getaddrinfo, (const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res),
     (node, service, hints, res))

/// getline. stdio.h defines it inline (over __getdelim) when optimising,
/// so the wrapper takes its name by asm label.
FL_NEXT_VAR(getline)
SHIM_EXPORT ssize_t shim_getline(char **line, size_t *cap, FILE *f) __asm__("getline");
SHIM_EXPORT ssize_t shim_getline(char **line, size_t *cap, FILE *f) {
    ssize_t (*real)(char **, size_t *, FILE *) = (ssize_t (*)(char **, size_t *, FILE *))next_fn(&next_getline, "getline");
    ssize_t r;
    AS_CALLER(r, real(line, cap, f));
    return r;
}

/// asprintf: vasprintf's work, the stack from asprintf's caller.
SHIM_EXPORT int asprintf(char **out, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int (*real)(char **, const char *, va_list) = (int (*)(char **, const char *, va_list))next_fn(&next_vasprintf, "vasprintf");
    int r;
    AS_CALLER(r, real(out, fmt, ap));
    va_end(ap);
    return r;
}

/// __asprintf_chk (asprintf under _FORTIFY_SOURCE).
SHIM_EXPORT int __asprintf_chk(char **out, int flag, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int (*real)(char **, int, const char *, va_list) =
        (int (*)(char **, int, const char *, va_list))next_fn(&next___vasprintf_chk, "__vasprintf_chk");
    int r;
    AS_CALLER(r, real(out, flag, fmt, ap));
    va_end(ap);
    return r;
}

void shim_libc_callers_init(void) {
#if defined(__x86_64__)
    __atomic_store_n(&next_realpath_new, dlvsym(RTLD_NEXT, "realpath", "GLIBC_2.3"), __ATOMIC_RELEASE);
    __atomic_store_n(&next_realpath_old, dlvsym(RTLD_NEXT, "realpath", "GLIBC_2.2.5"), __ATOMIC_RELEASE);
#endif
}
