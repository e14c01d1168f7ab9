// Report files: shared header sections and the atomic commit (write to a
// hidden temporary file in the preopened report directory, mode 0600, then
// rename), so a reader never sees a half-written report. Async-signal-safe.
#ifndef FL_REPORT_FILE_H
#define FL_REPORT_FILE_H

#include "images/image_list.h"
#include "json_writer.h"

#include <linux/capability.h>
#include <stdint.h>
#include <sys/types.h>

/// Version of the report schema (docs/report-schema.md).
#define FL_SCHEMA_VERSION 2

/// A report being written.
typedef struct fl_report {
    fl_json json;
    char id[17];
    char kind[32];
    uint64_t time_ns;
} fl_report;

/// Creates `path` and its missing parents (mode 0700). Returns 0 or -1
/// with errno set (ENAMETOOLONG, and nothing created, for a path of
/// PATH_MAX bytes or more).
int fl_mkdir_p(const char *path);
/// Sets the directory reports go to (an open O_DIRECTORY fd, or -1 when
/// `path` could not be opened; `path` NULL when none was named, "" when
/// FAULTLINE_REPORT_DIR is set but empty), and seeds ids. `path` is kept
/// for messages.
void fl_report_set_dir(int dirfd, const char *path);
/// The report directory fd, or -1; pass it to fl_report_dir_done when
/// finished. It is opened for each call by the directory's absolute path
/// (no fd is held; held only when /proc cannot name it). Async-signal-safe.
int fl_report_dir(void);
/// The directory fd this copy holds for the process's life, or -1 (none,
/// opened per report, or another copy's shared): the
/// agent's close and dup2 interposers refuse it like its other fds.
/// Async-signal-safe.
int fl_report_dir_held(void);
/// Opens the report directory and holds it from now on, when it was opened
/// per report: called before a set*id call (cred_interpose.c), after which
/// the path may be out of the process's reach (a parent it can no longer
/// search) while the directory itself is still writable for it. Allocation-
/// free; async-signal-safe.
void fl_report_dir_hold(void);
/// The program is closing `fd`, the report directory's (a close-all): it
/// is forgotten, and the next report opens the directory again by its
/// absolute path. The caller's close does the closing. Async-signal-safe.
void fl_report_dir_forget(int fd);
/// After fl_report_dir_forget where the number could only be taken again
/// among the program's (fl_fd_limit_raised_past_high): the directory is
/// opened by its absolute path for each report and closed after, as
/// before fl_report_dir_hold, so nothing of ours reappears after the
/// program's close-all. Held as before where /proc cannot name it.
/// Async-signal-safe.
void fl_report_dir_on_demand(void);
/// Ends a use of fl_report_dir's fd: closes it when it was opened for
/// that use. Async-signal-safe.
void fl_report_dir_done(int fd);
/// The path the report directory was named by (for messages), when one
/// was opened at install; NULL when none was. Async-signal-safe.
const char *fl_report_dir_path_opened(void);
/// Makes reports go through `dir` (another copy's fl_report_dir: the
/// agent's, seen from the malloc shim) and closes this copy's fd, when
/// `dir` returns an fd on the same directory and this copy holds one.
/// Returns 1 when shared. Install time.
int fl_report_share_dir(int (*dir)(void));
/// Re-seeds report ids (after fork, so parent and child never collide).
void fl_report_reseed(void);

/// What fl_report_ids_take (or fl_report_ids_take_real) changed on the
/// calling thread, for fl_report_ids_give to put back.
typedef struct fl_fs_turn {
    long fsuid, fsgid;  // the thread's before, or -1 where not switched
    int masked;         // SIGSETXID and the mirror's signal blocked; `mask` held the mask before
    uint64_t mask;      // the kernel's signal mask: 64 signals
    int have_caps;      // `caps` holds the capability sets before
    struct __user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3];
} fl_fs_turn;

/// Gives the calling thread, alone, the filesystem uid and gid the report
/// directory was opened with, when it has others: a program at a
/// temporary euid (seteuid(65534) with root kept as real or saved uid)
/// below a 0700 directory of root's. Call it around every file operation
/// in the directory — a report's create, rename and unlink
/// (fl_report_commit does), a breadcrumb file's create and unlink — and
/// the fl_report_dir call that gives its fd. Switches nothing when no
/// directory was opened, or when the kernel refuses the ids (a drop for
/// good: the operation then fails as it would have). Blocks glibc's
/// SIGSETXID and the credential mirror's signal meanwhile; keeps the
/// effective capabilities as they were. Async-signal-safe (raw system
/// calls). Pair with fl_report_ids_give on the same thread.
void fl_report_ids_take(fl_fs_turn *t);
/// The same switch to the calling thread's real uid and gid (which the
/// kernel allows without CAP_SETUID), for fl_report_dir_open: a program
/// exec'd after a temporary drop starts with euid 65534 and real uid 0.
/// Pair with fl_report_ids_give. Async-signal-safe.
void fl_report_ids_take_real(fl_fs_turn *t);
/// Puts back what fl_report_ids_take or fl_report_ids_take_real changed on
/// the calling thread: its filesystem ids, its effective capabilities, its
/// signal mask. Async-signal-safe.
void fl_report_ids_give(const fl_fs_turn *t);
/// Says that the directory fl_report_dir_open is about to return was
/// opened at filesystem ids `fsuid` and `fsgid` (fl_report_ids_take_real),
/// not the calling thread's: the next fl_report_set_dir records them as
/// the directory's, so each report switches to them. Install time.
void fl_report_dir_opened_at(long fsuid, long fsgid);

/// Makes every report carry what `write` adds after `process` (the
/// agent's annotations and phase: annotate.h). `write` must be
/// async-signal-safe. Install time.
void fl_report_set_annotations(void (*write)(fl_json *w));

/// Starts a report: opens the top-level object and writes schema, id, kind,
/// detector, time, process, host and the annotations (when set).
void fl_report_begin(fl_report *r, char *buf, size_t cap, const char *kind);
/// Closes the top-level object and writes the file. Returns 0 or -1.
/// `path_out` (may be NULL) receives the file name inside the directory.
/// When the file cannot be written (no directory, the directory removed,
/// the disk full), the report is not lost: one line on stderr names the
/// directory and the cause, and the report follows it there as one line of
/// JSON.
int fl_report_commit(fl_report *r, char *name_out, size_t name_cap);

/// What frame 0 of a stack is (docs/report-schema.md, "Frame semantics").
/// Every later frame is a return address either way.
typedef enum fl_frame0 {
    /// The interrupted instruction: a signal context's pc (the crashed
    /// thread of a fatal signal, a thread sampled by a directed signal).
    /// What readers assume when a frame says nothing.
    FL_FRAME0_INTERRUPTED = 0,
    /// A return address like the rest: the stack was taken by calling code
    /// (getcontext, unw_backtrace, a walk from an allocator's frame), so
    /// frame 0 is the instruction after a call. Written as
    /// `"return_address": true` on frame 0.
    FL_FRAME0_RETURN_ADDRESS = 1,
} fl_frame0;

/// The C library's signal-return trampoline (`__restore_rt`), the return
/// address the kernel gives every handler: a frame at it is where a signal
/// handler was called, and is written `"signal_frame": true`. 0 until the
/// agent sets it at install.
extern uintptr_t fl_signal_trampoline;

/// Writes `"key": [frames]` where each frame names its image and offset;
/// `frame0` says what `pcs[0]` is.
void fl_report_frames(fl_json *w, const char *key, const uintptr_t *pcs, int n, fl_frame0 frame0,
                      const fl_image_list *images);
/// Writes one `"key": [frames]` array from two runs of frames (the innermost
/// and the outermost of a stack too deep to keep whole); `frame0` is about
/// `a[0]`.
void fl_report_frames_split(fl_json *w, const char *key, const uintptr_t *a, int na,
                            const uintptr_t *b, int nb, fl_frame0 frame0, const fl_image_list *images);
/// Writes the `"capture"` section: the unwinder in use and the time since
/// `started_ns` (CLOCK_MONOTONIC), i.e. how long taking the report took.
void fl_report_capture(fl_json *w, uint64_t started_ns);
/// Writes the `"capture"` section naming `unwinder` ("libunwind" or
/// "frame_pointer") instead of the one in use, and, when `reason` is not
/// NULL, why (`unwinder_reason`).
void fl_report_capture_by(fl_json *w, uint64_t started_ns, const char *unwinder, const char *reason);
/// Writes a thread's `"unwinder": "frame_pointer"` when `by_fp`: its stack
/// was taken by frame pointers although `capture.unwinder` says libunwind
/// (the thread saw another inside dl_iterate_phdr), so frames of code built
/// without frame pointers are missing from it.
void fl_report_thread_unwinder(fl_json *w, int by_fp);
/// Writes `"images": [...]`.
void fl_report_images(fl_json *w, const fl_image_list *images);
#endif
