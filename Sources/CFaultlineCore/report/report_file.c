#include "tool_log.h"
#include "report_file.h"
#include "cred_mirror.h"
#include "fl_options.h"
#include "fd_transient.h"
#include "fd_high.h"
#include "proc_tid.h"
#include "sigsafe.h"
#include "unwinder.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

static atomic_int g_dirfd = -1;
static char g_dir_path[PATH_MAX];  // for messages; empty when none was named
static int g_dir_named_empty;      // FAULTLINE_REPORT_DIR= (set, empty): say so, not "not set"
// The directory g_dirfd was opened on, to notice when the program has
// closed that fd (daemons close every fd above 2) and perhaps reused the
// number for a file or a directory of its own; and its absolute path, to
// open it again then.
static dev_t g_dir_dev;
static ino_t g_dir_ino;
static char g_dir_abs[PATH_MAX];
// 1 when no fd is held at all: fl_report_dir opens the directory by its
// absolute path for each report. So once the path is known (issue 37: a
// process holds no fd for a directory it may never write to, so a program
// listing /proc/self/fd, or a child's after a close-all, sees none), unless
// the fd limit cannot be raised for an open of ours (a soft limit equal to
// a hard one this process may not raise): out of fds, a report then has one
// reserved number (fd_transient.h) and needs the directory and its file at
// once. Held from a set*id call on (fl_report_dir_hold).
static int g_on_demand;
// Set when another copy of this file (the agent's, in the malloc shim)
// holds an fd on the same directory: reports go through it, and ours is
// closed (fl_report_share_dir).
static int (*g_shared)(void);
static uint64_t g_id_seed;
// Writes the agent's annotations into each report (fl_report_set_annotations).
static void (*g_annotations)(fl_json *);
static atomic_uint_fast64_t g_id_counter;
// The filesystem uid and gid the directory was opened with, -1 when none
// was: a thread at other ids (a seteuid for a while) takes these back for
// the write (fl_report_ids_take).
static long g_dir_fsuid = -1, g_dir_fsgid = -1;
// The ids fl_report_dir_open opened the directory at, when not the calling
// thread's (fl_report_dir_opened_at): the next fl_report_set_dir takes them.
static long g_open_fsuid = -1, g_open_fsgid = -1;

// The 32-bit-id calls where the plain ones take 16-bit ids (i386, arm).
#ifdef SYS_setfsuid32
#define FL_SYS_SETFSUID SYS_setfsuid32
#define FL_SYS_SETFSGID SYS_setfsgid32
#else
#define FL_SYS_SETFSUID SYS_setfsuid
#define FL_SYS_SETFSGID SYS_setfsgid
#endif

/// The calling thread's filesystem uid (`nr` FL_SYS_SETFSUID) or gid
/// (FL_SYS_SETFSGID). -1 is no valid id: the kernel changes nothing and
/// returns the current one. Async-signal-safe.
static long fs_id(long nr) { return syscall(nr, -1L); }

void fl_report_reseed(void) {
    uint64_t seed = 0;
    if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) != (ssize_t)sizeof seed)
        seed = fl_realtime_ns() ^ ((uint64_t)getpid() << 32);
    g_id_seed = seed;
}

void fl_report_set_dir(int dirfd, const char *path) {
    dirfd = fl_fd_move_high(dirfd);  // out of the way of a program's dup2 onto low numbers
    struct stat st;
    g_dir_abs[0] = 0;
    if (dirfd >= 0 && fstat(dirfd, &st) == 0) {
        g_dir_dev = st.st_dev;
        g_dir_ino = st.st_ino;
        char link[64] = "/proc/self/fd/";
        size_t l = fl_strlen(link);
        l += fl_fmt_u64(link + l, (uint64_t)dirfd);
        link[l] = 0;
        ssize_t n = readlink(link, g_dir_abs, sizeof g_dir_abs - 1);
        g_dir_abs[n > 0 && g_dir_abs[0] == '/' ? n : 0] = 0;
    }
    // A report (rare) can afford an open; the program may need every fd
    // it has, and lists them. Without /proc to name it, the fd is kept.
    g_on_demand = dirfd >= 0 && g_dir_abs[0] && (fl_fd_low_limit() || fl_fd_limit_raisable());
    // The ids the kernel checked the directory's permissions against: the
    // opening thread's (fl_report_dir_open ran on it just before), or the
    // real ones it switched to for the open (fl_report_dir_opened_at).
    g_dir_fsuid = dirfd < 0 ? -1 : g_open_fsuid >= 0 ? g_open_fsuid : fs_id(FL_SYS_SETFSUID);
    g_dir_fsgid = dirfd < 0 ? -1 : g_open_fsgid >= 0 ? g_open_fsgid : fs_id(FL_SYS_SETFSGID);
    g_open_fsuid = g_open_fsgid = -1;
    if (g_on_demand) {
        close(dirfd);
        dirfd = -1;
    }
    atomic_store(&g_dirfd, dirfd);
    fl_strlcpy(g_dir_path, path ? path : "", sizeof g_dir_path);
    g_dir_named_empty = path && !path[0];
    fl_report_reseed();
}

int fl_report_share_dir(int (*dir)(void)) {
    if (g_shared || g_on_demand || !dir) return 0;
    int mine = atomic_load(&g_dirfd), theirs = dir();
    struct stat st;
    if (mine < 0 || theirs < 0 || fstat(theirs, &st) != 0 || st.st_dev != g_dir_dev || st.st_ino != g_dir_ino) return 0;
    g_shared = dir;
    atomic_store(&g_dirfd, -1);
    close(mine);
    return 1;
}

int fl_report_dir_held(void) { return atomic_load(&g_dirfd); }

void fl_report_dir_hold(void) {
    fl_fd_reserve_before_setid();
    if (!g_on_demand || g_shared || fl_fd_low_limit()) return;
    int fd = fl_report_dir();
    if (fd < 0) return;
    int none = -1;
    if (!atomic_compare_exchange_strong(&g_dirfd, &none, fd)) { fl_close_high(fd); return; }
    g_on_demand = 0;
}

void fl_report_dir_forget(int fd) {
    int expected = fd;
    atomic_compare_exchange_strong(&g_dirfd, &expected, -1);
}

void fl_report_dir_on_demand(void) {
    if (!g_shared && g_dir_abs[0]) g_on_demand = 1;
}

void fl_report_dir_done(int fd) {
    if (g_on_demand && !g_shared && fd >= 0) fl_close_high(fd);
}

// The report directory's fd, opened again by its absolute path when the
// one we hold no longer refers to it. The old number is left alone: it is
// the program's now. Async-signal-safe (fstat, open).
int fl_report_dir(void) {
    if (g_shared) return g_shared();
    if (g_on_demand) {
        int fd = fl_open_high(g_dir_abs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        // faultline exec renamed the run's hidden directory when the program
        // ended and left its old name as a link to it: a process still
        // running follows it (reports.md, "Processes left running").
        if (fd < 0 && errno == ELOOP) fd = fl_open_high(g_dir_abs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        return fd;
    }
    int fd = atomic_load(&g_dirfd);
    // Never opened (refused), or let go to a close-all (fl_report_dir_forget).
    if (fd < 0 && !g_dir_abs[0]) return -1;
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_dev == g_dir_dev && st.st_ino == g_dir_ino) return fd;
    if (!g_dir_abs[0]) return fd;
    int nfd = fl_open_high(g_dir_abs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    // Removed meanwhile: the number we held is still not ours to use.
    if (nfd < 0) return -1;
    if (fstat(nfd, &st) == 0) { g_dir_dev = st.st_dev; g_dir_ino = st.st_ino; }
    if (!atomic_compare_exchange_strong(&g_dirfd, &fd, nfd)) { fl_close_high(nfd); return fl_report_dir(); }
    return nfd;
}

int fl_mkdir_p(const char *path) {
    char tmp[PATH_MAX];
    // Cut short, the path would name another directory, made without a word.
    if (fl_strlcpy(tmp, path, sizeof tmp) < strlen(path)) { errno = ENAMETOOLONG; return -1; }
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(tmp, 0700) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(tmp, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

static void make_id(char *out) {
    static const char hex[] = "0123456789abcdef";
    // splitmix64 over seed+counter: unique per report, unpredictable enough.
    uint64_t z = g_id_seed + 0x9e3779b97f4a7c15ull * (atomic_fetch_add(&g_id_counter, 1) + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    for (int i = 15; i >= 0; i--) { out[i] = hex[z & 15]; z >>= 4; }
    out[16] = 0;
}

// The detector that writes each kind of report, where it is not the kind.
static const char *detector_of(const char *kind) {
    static const struct { const char *kind, *detector; } table[] = {
        {"hang_recovered", "hang"}, {"deadlock", "hang"},
        {"memory_warning", "memory"}, {"oom_kill", "memory"},
        {"use_after_free", "malloc_shim"}, {"write_after_free", "malloc_shim"},
        {"double_free", "malloc_shim"}, {"invalid_free", "malloc_shim"}, {"alloc_dealloc_mismatch", "malloc_shim"},
        {"new_delete_type_mismatch", "malloc_shim"}, {"heap_buffer_overflow", "malloc_shim"}, {"heap_buffer_underflow", "malloc_shim"},
        {"leak", "leaks"}, {"leak_growth", "leaks"},
        {"cpu_hog", "cpu"}, {"fd_leak", "fds"}, {"fd_pressure", "fds"},
        {"thread_leak", "threads"}, {"thread_growth", "threads"},
    };
    for (unsigned i = 0; i < sizeof table / sizeof table[0]; i++)
        if (fl_streq(table[i].kind, kind)) return table[i].detector;
    return kind;
}

void fl_report_begin(fl_report *r, char *buf, size_t cap, const char *kind) {
    fl_json *w = &r->json;
    fl_json_init(w, buf, cap);
    make_id(r->id);
    fl_strlcpy(r->kind, kind, sizeof r->kind);
    r->time_ns = fl_realtime_ns();
    char iso[32];
    fl_fmt_iso8601(iso, r->time_ns);
    fl_json_begin_object(w, 0);
    fl_json_string(w, "schema", "faultline.report");
    fl_json_int(w, "schema_version", FL_SCHEMA_VERSION);
    fl_json_string(w, "id", r->id);
    fl_json_string(w, "kind", kind);
    fl_json_string(w, "detector", detector_of(kind));
    fl_json_string(w, "time", iso);
    fl_json_uint(w, "time_unix_ms", r->time_ns / 1000000ull);
    // Orders reports written within one millisecond (an exit check writes
    // several); file mtimes cannot, the kernel stamps them from a coarse clock.
    fl_json_uint(w, "time_unix_ns", r->time_ns);

    char name[64], exe[FL_IMAGE_PATH_MAX];
    fl_json_begin_object(w, "process");
    fl_json_int(w, "pid", getpid());
    fl_json_int(w, "ppid", getppid());
    if (fl_read_file("/proc/self/comm", name, sizeof name) > 0) {
        size_t l = fl_strlen(name);
        while (l > 0 && name[l - 1] == '\n') name[--l] = 0;
        fl_json_string(w, "name", name);
    }
    // The calling thread's link: the main thread's is gone once it has ended.
    char link[64];
    fl_proc_self_path(link, sizeof link, "exe");
    ssize_t el = readlink(link, exe, sizeof exe - 1);
    if (el <= 0) el = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (el > 0) { exe[el] = 0; fl_json_string(w, "executable", exe); }
    fl_json_end_object(w);
    // The machine, so reports gathered from many can be told apart
    // (`faultline report groups`); the raw call, no locale or NSS.
    struct utsname uts;
    if (syscall(SYS_uname, &uts) == 0 && uts.nodename[0]) fl_json_string(w, "host", uts.nodename);
    void (*annotations)(fl_json *) = __atomic_load_n(&g_annotations, __ATOMIC_ACQUIRE);
    if (annotations) annotations(w);
}

void fl_report_set_annotations(void (*write)(fl_json *w)) { __atomic_store_n(&g_annotations, write, __ATOMIC_RELEASE); }

// The report could not go into a file: one line saying why, then the
// report itself, so it is not lost. strerrordesc_np and strerrorname_np read
// static tables (no locale, no allocation), unlike strerror.
// Whether a directory was opened at install (held, shared or on demand).
static int have_dir(void) { return g_shared || g_on_demand || atomic_load(&g_dirfd) >= 0 || g_dir_abs[0]; }

const char *fl_report_dir_path_opened(void) { return have_dir() ? g_dir_path : (const char *)0; }

static void print_unwritten(const fl_report *r, int err) {
    char line[PATH_MAX + 256];
    size_t n = fl_strlcpy(line, "faultline: the ", sizeof line);
    n += fl_strlcpy(line + n, r->kind, sizeof line - n);
    if (have_dir()) {
        const char *desc = strerrordesc_np(err), *name = strerrorname_np(err);
        n += fl_strlcpy(line + n, " report could not be written into ", sizeof line - n);
        n += fl_strlcpy(line + n, g_dir_path, sizeof line - n);
        n += fl_strlcpy(line + n, ": ", sizeof line - n);
        n += fl_strlcpy(line + n, desc ? desc : "unknown error", sizeof line - n);
        if (name) {
            n += fl_strlcpy(line + n, " (", sizeof line - n);
            n += fl_strlcpy(line + n, name, sizeof line - n);
            n += fl_strlcpy(line + n, ")", sizeof line - n);
        }
    } else if (g_dir_path[0]) {
        n += fl_strlcpy(line + n, " report has no directory (", sizeof line - n);
        n += fl_strlcpy(line + n, g_dir_path, sizeof line - n);
        n += fl_strlcpy(line + n, " could not be opened)", sizeof line - n);
    } else if (fl_option_secure()) {
        n += fl_strlcpy(line + n, " report has no directory (secure execution: the caller's FAULTLINE_REPORT_DIR is not used)", sizeof line - n);
    } else {
        n += fl_strlcpy(line + n, g_dir_named_empty ? " report has no directory (FAULTLINE_REPORT_DIR is set but empty)"
                                                    : " report has no directory (FAULTLINE_REPORT_DIR is not set)", sizeof line - n);
    }
    n += fl_strlcpy(line + n, "; it follows on stderr\n", sizeof line - n);
    fl_log_write(line, n);
    fl_log_write(r->json.buf, r->json.len);
    fl_log_write("\n", 1);
}

// --- writing at the directory's ids ------------------------------------------

// Sets the thread's filesystem uid or gid (`nr`) to `want`. Returns the
// one it had when it now has `want`, or -1: already `want`, or refused.
// setfsuid returns the previous id whether or not it succeeded, so the
// result is read back.
static long fs_switch(long nr, long want) {
    long old = syscall(nr, want);
    if (old == want || fs_id(nr) != want) return -1;
    return old;
}

// Why the switch (fl_report_ids_take, report_file.h): the program changed
// its effective ids (seteuid, setegid) after Faultline opened the
// directory, which is usually the user's who started it and mode 0700
// (`faultline exec` as root, a daemon that runs as nobody for a while). The
// kernel lets a thread set its fsuid to its real, effective or saved uid
// without CAP_SETUID, so a drop that kept the old id as real or saved uid
// can go back for the write; one that gave up all three (setresuid) cannot,
// and then nothing changes: the create fails as before and the report goes
// to stderr.
//
// The switch is made up front whenever the ids differ, rather than after
// a failed create: the directory's own open (fl_report_dir, on demand or
// after the program closed our fd) needs it too, and the rename and the
// unlink must run at the ids that made the file; each report file is then
// owned by the directory's user, as the others are.

// Switches the calling thread's filesystem ids to `uid` and `gid` where
// they differ, recording in `t` what fl_report_ids_give puts back.
// Async-signal-safe: raw system calls only.
static void ids_take(fl_fs_turn *t, long uid, long gid) {
    t->fsuid = t->fsgid = -1;
    t->masked = t->have_caps = 0;
    if (uid < 0) return;
    int saved = errno;
    // Two signals wait until the report is written, for every report: the
    // ids are compared and kept only while they do. glibc's SIGSETXID (a
    // seteuid of any thread, applied to this one: it sets the fsuid to the
    // new euid) would otherwise change them mid-write, after a comparison
    // that found nothing to switch, or before a give-back that would undo
    // it (the kernel's second real-time signal, below SIGRTMIN). This
    // image's credential-mirror request (cred_mirror.h) gives an own thread
    // the program's capabilities, which the give-back would undo too; it
    // waits for the answer far longer than a write takes.
    uint64_t block = 1ull << (__SIGRTMIN + 1 - 1);
    int mirror = fl_cred_mirror_signal();
    if (mirror > 0 && mirror <= 64) block |= 1ull << (mirror - 1);
    t->masked = syscall(SYS_rt_sigprocmask, SIG_BLOCK, &block, &t->mask, sizeof t->mask) == 0;
    // setfsuid and setfsgid change the calling thread only (the kernel's
    // credentials are per thread): raw calls, never glibc's setuid family,
    // which applies each change to every thread (SIGSETXID), and no PLT
    // entry a program could interpose. Supplementary groups stay as they
    // are: the directory is its opener's, whose fsgid this takes back.
    if (gid >= 0) t->fsgid = fs_switch(FL_SYS_SETFSGID, gid);
    if (fs_id(FL_SYS_SETFSUID) != uid) {
        // Moving the fsuid to or from 0 raises or clears the file-system
        // capabilities in the effective set (capabilities(7)): kept, to be
        // put back exactly.
        struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
        t->have_caps = syscall(SYS_capget, &h, t->caps) == 0;
        t->fsuid = fs_switch(FL_SYS_SETFSUID, uid);
    }
    errno = saved;
}

void fl_report_ids_take(fl_fs_turn *t) { ids_take(t, g_dir_fsuid, g_dir_fsgid); }

void fl_report_ids_take_real(fl_fs_turn *t) { ids_take(t, (long)getuid(), (long)getgid()); }

void fl_report_dir_opened_at(long fsuid, long fsgid) {
    g_open_fsuid = fsuid;
    g_open_fsgid = fsgid;
}

void fl_report_ids_give(const fl_fs_turn *t) {
    int saved = errno;
    if (t->fsuid >= 0) syscall(FL_SYS_SETFSUID, t->fsuid);
    if (t->fsgid >= 0) syscall(FL_SYS_SETFSGID, t->fsgid);
    if (t->have_caps && t->fsuid >= 0) {
        struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
        struct __user_cap_data_struct now[_LINUX_CAPABILITY_U32S_3];
        // A raw capset: glibc's is interposed (cred_interpose.c), and its
        // mirroring of our threads has no place in a report's write.
        if (syscall(SYS_capget, &h, now) == 0 &&
            (now[0].effective != t->caps[0].effective || now[1].effective != t->caps[1].effective))
            syscall(SYS_capset, &h, t->caps);
    }
    if (t->masked) syscall(SYS_rt_sigprocmask, SIG_SETMASK, &t->mask, (void *)0, sizeof t->mask);
    errno = saved;
}

// Writes the report's file; 0, or -1 with *err the errno value that says
// why (0: no directory was opened at install).
static int write_file(fl_report *r, char *final_name, size_t final_cap, int *err) {
    errno = 0;
    int dirfd = fl_report_dir();
    if (dirfd < 0) {
        // On demand the open's own errno says why (EMFILE: the program used every fd).
        *err = have_dir() ? (errno ? errno : ENOENT) : 0;
        return -1;
    }
    char tmp_name[104];
    size_t n = fl_strlcpy(final_name, r->kind, final_cap);
    final_name[n++] = '-';
    char iso[32];
    fl_fmt_iso8601(iso, r->time_ns);
    // 2026-11-21T23:11:00.123Z -> 20261121T231100
    const int keep[] = {0, 1, 2, 3, 5, 6, 8, 9, 10, 11, 12, 14, 15, 17, 18};
    for (unsigned i = 0; i < sizeof keep / sizeof keep[0]; i++) final_name[n++] = iso[keep[i]];
    final_name[n++] = '-';
    n += fl_fmt_u64(final_name + n, (uint64_t)getpid());
    final_name[n++] = '-';
    n += fl_strlcpy(final_name + n, r->id, final_cap - n);
    n += fl_strlcpy(final_name + n, ".json", final_cap - n);
    tmp_name[0] = '.';
    size_t t = 1 + fl_strlcpy(tmp_name + 1, final_name, sizeof tmp_name - 1);
    fl_strlcpy(tmp_name + t, ".tmp", sizeof tmp_name - t);

    int fd = fl_openat_high(dirfd, tmp_name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        *err = errno;
        fl_report_dir_done(dirfd);
        return -1;
    }
    int ok = fl_write_all(fd, r->json.buf, r->json.len) == 0 && fl_write_all(fd, "\n", 1) == 0;
    *err = errno;
    fl_close_high(fd);
    if (ok && renameat(dirfd, tmp_name, dirfd, final_name) != 0) ok = 0, *err = errno;
    if (!ok) unlinkat(dirfd, tmp_name, 0);
    fl_report_dir_done(dirfd);
    return ok ? 0 : -1;
}

int fl_report_commit(fl_report *r, char *name_out, size_t name_cap) {
    fl_json_end_object(&r->json);
    if (r->json.overflowed) {
        // An overflowed report would be invalid JSON; callers size buffers so
        // this does not happen, and if it does we say so rather than lie.
        static const char msg[] = "faultline: report buffer too small, report dropped\n";
        fl_log_write(msg, sizeof msg - 1);
        return -1;
    }
    char final_name[96];
    int err = 0;
    fl_fs_turn turn;
    fl_report_ids_take(&turn);
    int rc = write_file(r, final_name, sizeof final_name, &err);
    fl_report_ids_give(&turn);
    if (rc != 0) {
        print_unwritten(r, err);
        return -1;
    }
    if (name_out) fl_strlcpy(name_out, final_name, name_cap);
    return 0;
}

uintptr_t fl_signal_trampoline;

// `mark_first`: pcs[0] is frame 0 of a stack taken by calling code, a return
// address; it says so (a reader assumes otherwise for frame 0).
static void write_frames(fl_json *w, const uintptr_t *pcs, int n, int mark_first, const fl_image_list *images) {
    for (int i = 0; i < n; i++) {
        fl_json_begin_object(w, 0);
        fl_json_hex(w, "pc", pcs[i]);
        int img = images ? fl_images_find(images, pcs[i]) : -1;
        if (img >= 0) {
            fl_json_int(w, "image", img);
            fl_json_hex(w, "offset", pcs[i] - images->images[img].load_bias);
        }
        if (i == 0 && mark_first) fl_json_bool(w, "return_address", 1);
        if (fl_signal_trampoline && pcs[i] == fl_signal_trampoline) fl_json_bool(w, "signal_frame", 1);
        fl_json_end_object(w);
    }
}

void fl_report_frames(fl_json *w, const char *key, const uintptr_t *pcs, int n, fl_frame0 frame0,
                      const fl_image_list *images) {
    fl_json_begin_array(w, key);
    write_frames(w, pcs, n, frame0 == FL_FRAME0_RETURN_ADDRESS, images);
    fl_json_end_array(w);
}

void fl_report_frames_split(fl_json *w, const char *key, const uintptr_t *a, int na,
                            const uintptr_t *b, int nb, fl_frame0 frame0, const fl_image_list *images) {
    fl_json_begin_array(w, key);
    int mark = frame0 == FL_FRAME0_RETURN_ADDRESS;
    write_frames(w, a, na, mark, images);
    write_frames(w, b, nb, mark && na == 0, images);
    fl_json_end_array(w);
}

void fl_report_images(fl_json *w, const fl_image_list *images) {
    static const char hex[] = "0123456789abcdef";
    fl_json_begin_array(w, "images");
    for (int i = 0; i < images->count; i++) {
        const fl_image *im = &images->images[i];
        fl_json_begin_object(w, 0);
        fl_json_string(w, "path", im->path);
        fl_json_hex(w, "base", im->start);
        fl_json_uint(w, "size", im->end - im->start);
        fl_json_hex(w, "load_bias", im->load_bias);
        if (im->build_id_len > 0) {
            char id[FL_BUILD_ID_MAX * 2 + 1];
            for (int k = 0; k < im->build_id_len; k++) {
                id[2 * k] = hex[im->build_id[k] >> 4];
                id[2 * k + 1] = hex[im->build_id[k] & 15];
            }
            id[2 * im->build_id_len] = 0;
            fl_json_string(w, "build_id", id);
        }
        fl_json_end_object(w);
    }
    fl_json_end_array(w);
}


void fl_report_capture(fl_json *w, uint64_t started_ns) { fl_report_capture_by(w, started_ns, fl_unwinder_method(), 0); }

void fl_report_thread_unwinder(fl_json *w, int by_fp) {
    if (by_fp) fl_json_string(w, "unwinder", "frame_pointer");
}

void fl_report_capture_by(fl_json *w, uint64_t started_ns, const char *unwinder, const char *reason) {
    fl_json_begin_object(w, "capture");
    fl_json_string(w, "unwinder", unwinder);
    if (reason) fl_json_string(w, "unwinder_reason", reason);
    fl_json_uint(w, "duration_ns", fl_monotonic_ns() - started_ns);
    fl_json_end_object(w);
}
