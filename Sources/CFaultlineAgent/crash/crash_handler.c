#include "crash_signals.h"
#include "tool_log.h"
#include "crash_handler.h"
#include "fault_access.h"
#include "agent_config.h"
#include "agent_threads.h"
#include "cancel_off.h"
#include "crash_deadline.h"
#include "fault_default.h"
#include "fault_mask.h"
#include "handler_mask.h"
#include "image_list.h"
#include "loader_lock_watch.h"
#include "program_handler.h"
#include "raw_syscall.h"
#include "report_file.h"
#include "signal_names.h"
#include "sigsafe.h"
#include "reraised_fault.h"
#include "stack_overflow.h"
#include "stack_switch.h"
#include "stderr_capture.h"
#include "thread_capture.h"
#include "symbol_table.h"
#include "unwinder.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define FL_REPORT_BUF_SIZE (8u << 20)
#define FL_RECRASH_BUF_SIZE (1u << 20)
/// Bytes of the interrupted first attempt kept in a recrash report.
#define FL_RECRASH_PARTIAL_MAX (96u << 10)


static struct sigaction g_prev[FL_CRASH_SIGNAL_COUNT];
static int g_installed;

// Everything the fault path touches is allocated here, at install.
static char *g_buf;
static char *g_recrash_buf;
static fl_image_list g_images;
static uintptr_t g_pcs[FL_MAX_FRAMES];
/// Every frame of the crashed thread, however deep (a stack overflow has tens
/// of thousands); only the innermost and outermost go into the report.
#define FL_DEEP_FRAMES 65536
static uintptr_t g_deep[FL_DEEP_FRAMES];
/// Outermost frames kept when a stack is deeper than max_frames.
#define FL_KEEP_OUTER 16

/// The report is written on a stack of its own, whatever stack the handler
/// was entered on (see crash_handler); the recrash report, on another.
/// Across the scenario suite writing a report took at most 11 KiB of stack
/// and a recrash report 4 KiB; the crash stack is as large as the agent's
/// alternate stack it replaces because the user's crash callback runs on it.
#define FL_CRASH_STACK_SIZE (256u << 10)
#define FL_RECRASH_STACK_SIZE (64u << 10)
static fl_stack g_crash_stack;
static fl_stack g_recrash_stack;

// 0: idle; 1: a thread is writing a report (the one with t_reporting set).
static atomic_int g_state;
// Set on the thread that claimed g_state: a fatal signal there is a fault in
// the handler. Thread-local rather than a tid to compare, so the handler
// learns it without a system call; initial-exec, so reading it never
// allocates.
static __thread int t_reporting __attribute__((tls_model("initial-exec")));
// Set on a thread whose next SIGABRT is already reported (it is about to
// abort() after a cxx_exception or deadlock report). Only that signal on
// that thread: a terminate handler that itself segfaults, or another thread
// crashing meanwhile, still gets its report.
static __thread int t_abort_reported __attribute__((tls_model("initial-exec")));
// Set once a recrash report is being written: a fault in that gives up.
static atomic_int g_recrashing;
// Set once a reported fault was handed to the program's own handler. A
// later fault means the process lived on after it: the program recovers
// from faults, so its handler sees each one first from then on
// (crash_handler).
static atomic_int g_handed;
// Reports written for faults handed to, or given back by, the program's
// handler; past FL_MAX_HANDED_REPORTS they are not written (a handler that
// returns from SIGTRAP each time would otherwise get one per trap).
static atomic_int g_handed_reports;
#define FL_MAX_HANDED_REPORTS 16
static int g_first_sig;
static siginfo_t g_first_info;
static fl_report g_report;
static const char *g_stage = "start";

static faultline_crash_callback g_cb;
static void *g_cb_ctx;
static fl_fault_describer g_describer;
// swift_getFatalErrorMessageBuffer() returns a std::atomic<const char *> *;
// the Swift runtime stores its fatal error message there before trapping.
static _Atomic(const char *) *g_swift_message;
/// The reporting thread's context, copied: a deadline signal lands on the
/// alternate stack over the kernel's frame that held it.
static ucontext_t g_first_uc;
static int g_first_has_uc, g_first_frame0, g_first_has_signal;
/// Where the reported stack begins (fl_crash_report_event's `first_pc`), or 0.
static uintptr_t g_first_pc;
static pid_t g_reporter;
/// When the stage in progress began (CLOCK_MONOTONIC).
static uint64_t g_stage_start_ns;
/// Set when this report's stacks are taken by frame pointers because
/// another thread was inside dl_iterate_phdr (see loader_busy).
static int g_fp_only;
/// `capture.unwinder_reason` of such a report.
#define FL_FP_REASON "another thread is inside dl_iterate_phdr"
/// How long the handler lets another thread finish a dl_iterate_phdr call
/// before it gives up on libunwind: an unwinder's or profiler's walk takes
/// microseconds; one that lasts longer is parked there (loader_busy).
#define FL_LOADER_GRACE_NS 5000000ull

// Names what the handler does next and gives it the deadline's time anew,
// plus `extra_ms` for a stage that waits on purpose (other threads' stacks).
static void set_stage(const char *stage, uint64_t extra_ms) {
    g_stage = stage;
    g_stage_start_ns = fl_monotonic_ns();
    uint64_t ms = (uint64_t)fl_agent_config.crash_deadline_ms;
    if (ms) fl_deadline_arm(g_reporter, ms + extra_ms);
}

void fl_crash_set_callback(faultline_crash_callback cb, void *ctx) {
    g_cb_ctx = ctx;
    g_cb = cb;
}

void fl_crash_suppress_next_abort(void) { t_abort_reported = 1; }

// 1 when another thread stays inside dl_iterate_phdr for FL_LOADER_GRACE_NS.
// glibc holds the dynamic linker's write lock across its callbacks, and
// libunwind's first walk through a function iterates too, so it would wait
// for that thread, until the deadline if it is parked there. Then the stacks
// are taken by frame pointers at once (no lock), and the report is complete
// and immediate rather than a handler_stalled one after the deadline.
static int loader_busy(void) {
    uint64_t end = fl_monotonic_ns() + FL_LOADER_GRACE_NS;
    while (fl_loader_iteration_elsewhere()) {
        if (fl_monotonic_ns() >= end) return 1;
        fl_sleep_ns(200000);
    }
    return 0;
}

/// The default action, no flags, an empty mask.
static const struct sigaction k_default_action = {.sa_handler = SIG_DFL};

// Past the agent's sigaction interposer, which would put the crash handler
// back for a SIG_DFL (fault_default.h); a signal the program set SIG_DFL
// on since gets that, not what it had before the agent.
static void restore_previous(void) {
    for (int i = 0; i < FL_CRASH_SIGNAL_COUNT; i++)
        fl_real_sigaction(fl_crash_signals[i], fl_fault_default_is_set(fl_crash_signals[i]) ? &k_default_action : &g_prev[i], 0);
}

static void notify(const char *prefix, const char *name) {
    char line[256];
    size_t n = fl_strlcpy(line, prefix, sizeof line);
    n += fl_strlcpy(line + n, name, sizeof line - n);
    if (n < sizeof line - 1) line[n++] = '\n';
    fl_log_write(line, n);
}

// --- sections ---------------------------------------------------------------

static void write_registers(fl_json *w, const ucontext_t *uc) {
    fl_json_begin_object(w, "registers");
#if defined(__x86_64__)
    static const struct { const char *name; int reg; } regs[] = {
        {"rax", REG_RAX}, {"rbx", REG_RBX}, {"rcx", REG_RCX}, {"rdx", REG_RDX},
        {"rsi", REG_RSI}, {"rdi", REG_RDI}, {"rbp", REG_RBP}, {"rsp", REG_RSP},
        {"r8", REG_R8}, {"r9", REG_R9}, {"r10", REG_R10}, {"r11", REG_R11},
        {"r12", REG_R12}, {"r13", REG_R13}, {"r14", REG_R14}, {"r15", REG_R15},
        {"rip", REG_RIP}, {"eflags", REG_EFL}, {"cr2", REG_CR2}, {"err", REG_ERR},
        {"trapno", REG_TRAPNO},
    };
    for (unsigned i = 0; i < sizeof regs / sizeof regs[0]; i++)
        fl_json_hex(w, regs[i].name, (uint64_t)uc->uc_mcontext.gregs[regs[i].reg]);
#elif defined(__aarch64__)
    static const char *names[] = {"x0","x1","x2","x3","x4","x5","x6","x7","x8","x9","x10","x11","x12","x13","x14","x15",
        "x16","x17","x18","x19","x20","x21","x22","x23","x24","x25","x26","x27","x28","fp","lr"};
    for (int i = 0; i < 31; i++) fl_json_hex(w, names[i], uc->uc_mcontext.regs[i]);
    fl_json_hex(w, "sp", uc->uc_mcontext.sp);
    fl_json_hex(w, "pc", uc->uc_mcontext.pc);
    fl_json_hex(w, "pstate", uc->uc_mcontext.pstate);
#endif
    fl_json_end_object(w);
}

// The signal; `uc`, its registers when known, tells a stack overflow.
static void write_signal(fl_json *w, int sig, const siginfo_t *info, const ucontext_t *uc) {
    fl_json_begin_object(w, "signal");
    fl_json_int(w, "number", sig);
    fl_json_string(w, "name", fl_signal_name(sig));
    fl_json_int(w, "code", info->si_code);
    fl_json_string(w, "code_name", fl_signal_code_name(sig, info->si_code));
    // Only a signal the kernel raised for a fault has an address: in one a
    // process sent (si_code <= 0: kill, tgkill, raise, sigqueue, as a
    // program's own handler does when it re-raises a fault it caught)
    // si_addr overlays the sender's pid and uid, and read "at address
    // 0x15a4" for pid 5540.
    if ((sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGTRAP) && info->si_code > 0)
        fl_json_hex(w, "fault_address", (uint64_t)(uintptr_t)info->si_addr);
    if (info->si_code == SI_USER || info->si_code == SI_TKILL || info->si_code == SI_QUEUE)
        fl_json_int(w, "sender_pid", info->si_pid);
    if (uc && fl_fault_is_stack_overflow(sig, info->si_code, (uintptr_t)info->si_addr, fl_context_sp(uc)))
        fl_json_bool(w, "stack_overflow", 1);
    fl_fault_access access;
    if (fl_fault_access_of(sig, info, uc, &access)) {
        fl_json_begin_object(w, "access");
        if (access.type) fl_json_string(w, "type", access.type);
        if (access.size) fl_json_int(w, "size", access.size);
        if (access.source) fl_json_string(w, "type_from", access.source);
        fl_json_end_object(w);
    }
    // A fault the program's own handler re-raised (python3 -X faulthandler):
    // what the kernel said of the fault itself, from its frame on the stack.
    fl_reraised orig;
    if (fl_reraised_fault(sig, info, uc, &orig)) {
        fl_json_begin_object(w, "reraised_fault");
        fl_json_int(w, "code", orig.code);
        fl_json_string(w, "code_name", fl_signal_code_name(sig, orig.code));
        fl_json_hex(w, "fault_address", (uint64_t)orig.address);
        fl_json_hex(w, "pc", (uint64_t)orig.pc);
        fl_json_string(w, "from", orig.from_siginfo ? "siginfo" : "trap_registers");
        if (fl_fault_is_stack_overflow(sig, orig.code, orig.address, orig.sp)) fl_json_bool(w, "stack_overflow", 1);
        fl_json_end_object(w);
    }
    fl_json_end_object(w);
}

// Opens `crashed_thread` with this thread's tid, name and whether it is main.
static void begin_crashed_thread(fl_json *w) {
    char name[64];
    pid_t tid = fl_gettid();
    fl_json_begin_object(w, "crashed_thread");
    fl_json_int(w, "tid", tid);
    if (fl_thread_name(tid, name, sizeof name) > 0) fl_json_string(w, "name", name);
    fl_json_bool(w, "main", tid == getpid());
}

// The index of the first of `n` frames that is g_first_pc: the frames below
// it are the reporting detector's own (a terminate handler's), which a
// reader of the report should not have to step over. 0 when there is no
// such pc or it is not among the innermost frames (then nothing is hidden).
static int own_frames(const uintptr_t *pcs, int n) {
    for (int i = 0; g_first_pc && i < n && i < 16; i++)
        if (pcs[i] == g_first_pc) return i;
    return 0;
}

// `frame0`: what the pc in `uc` is. Without `uc` the stack is taken here, by
// a call, so its frame 0 is a return address.
static void write_crashed_thread(fl_json *w, const ucontext_t *uc, fl_frame0 frame0) {
    begin_crashed_thread(w);
    // Registers only of an interrupted context (a signal's): a context from
    // getcontext() (the C++ terminate handler's) leaves several unset.
    if (uc && frame0 == FL_FRAME0_INTERRUPTED) write_registers(w, uc);
    set_stage("unwinding the crashed thread", 0);
    g_fp_only = loader_busy();
    int max = fl_agent_config.max_frames;
    if (!uc) {
        ucontext_t here;
        int n;
        if (g_fp_only) {
            getcontext(&here);  // a register dump; frame 0 is then in this function
            n = fl_unwind_context_fp(&here, g_pcs, max);
        } else {
            n = fl_capture_self(g_pcs, max);
        }
        fl_report_frames(w, "frames", g_pcs, n, FL_FRAME0_RETURN_ADDRESS, &g_images);
    } else {
        int n = g_fp_only ? fl_unwind_context_fp(uc, g_deep, FL_DEEP_FRAMES) : fl_unwind_context_deep(uc, g_deep, FL_DEEP_FRAMES);
        int own = own_frames(g_deep, n);
        const uintptr_t *pcs = g_deep + own;
        n -= own;
        if (n <= max || max <= 2 * FL_KEEP_OUTER) {
            fl_report_frames(w, "frames", pcs, n < max ? n : max, frame0, &g_images);
        } else {
            // Innermost frames, then the outermost ones (main, thread start):
            // a stack overflow reads "where it recursed" and "who started it".
            int inner = max - FL_KEEP_OUTER;
            fl_report_frames_split(w, "frames", pcs, inner, pcs + n - FL_KEEP_OUTER, FL_KEEP_OUTER, frame0, &g_images);
            fl_json_int(w, "frames_omitted", n - max);
            fl_json_int(w, "frames_omitted_at", inner);
        }
    }
    fl_json_end_object(w);
}

static void write_report(const char *kind, int sig, const siginfo_t *info, const ucontext_t *uc, fl_frame0 frame0,
                         fl_section_writer extra, void *extra_ctx) {
    uint64_t t0 = fl_monotonic_ns();
    g_reporter = fl_gettid();
    g_first_has_uc = uc != 0;
    if (uc) g_first_uc = *uc;
    g_first_frame0 = frame0;
    g_first_has_signal = info != 0;
    set_stage("reading images", 0);
    fl_images_load(&g_images);
    fl_report *r = &g_report;
    fl_report_begin(r, g_buf, FL_REPORT_BUF_SIZE, kind);
    fl_json *w = &r->json;
    if (info) write_signal(w, sig, info, uc);
    write_crashed_thread(w, uc, frame0);
    if (extra) { set_stage("writing the detector's section", 0); extra(w, extra_ctx); }
    if (g_swift_message) {
        const char *m = atomic_load(g_swift_message);
        if (m) fl_json_string_n(w, "swift_fatal_error", m, fl_strlen(m) > 4096 ? 4096 : fl_strlen(m));
    }
    if (g_describer && info && uc) {
        static char desc[16384];
        set_stage("asking the malloc shim about the fault", 0);
        unsigned long dl = g_describer(info, uc, desc, sizeof desc);
        if (dl > 0 && dl < sizeof desc) fl_json_raw(w, "memory_error", desc, dl);
    }
    if (g_cb) {
        set_stage("running the crash callback", 0);
        fl_json_begin_object(w, "user");
        g_cb(w, g_cb_ctx);
        fl_json_end_object(w);
    }
    set_stage("capturing other threads", (uint64_t)fl_agent_config.max_threads * (uint64_t)fl_agent_config.thread_timeout_ms);
    fl_report_other_threads(w, fl_gettid(), &g_images, fl_agent_config.max_frames,
                            fl_agent_config.max_threads, (uint64_t)fl_agent_config.thread_timeout_ms * 1000000ull, g_fp_only);
    set_stage("writing images", 0);
    fl_report_images(w, &g_images);
    static char tail[FL_STDERR_TAIL];
    fl_stderr_write_tail(w, tail, sizeof tail);
    if (g_fp_only) fl_report_capture_by(w, t0, "frame_pointer", FL_FP_REASON);
    else fl_report_capture(w, t0);
    set_stage("writing the file", 0);
    char name[128];
    // On failure fl_report_commit says why and prints the report to stderr.
    if (fl_report_commit(r, name, sizeof name) == 0) notify("faultline: report written: ", name);
    fl_deadline_disarm();
}

// The first attempt's id and its JSON so far (cut at 96 KiB), for a report
// written in its place.
static void write_first_attempt(fl_json *w) {
    fl_json_string(w, "first_report_id", g_report.id);
    size_t len = g_report.json.len;
    size_t keep = len > FL_RECRASH_PARTIAL_MAX ? FL_RECRASH_PARTIAL_MAX : len;
    fl_json_uint(w, "partial_bytes", len);
    fl_json_string_n(w, "partial_report", g_report.json.buf, keep);
}

// The deadline passed while writing the first report: the handler is
// blocked (a lock held by a thread that will not let go) or far too slow.
// Write the report again without what can block: the crashed thread's stack
// by its frame pointers only, no other threads, no callback, no malloc shim;
// images if they were read. The first attempt's JSON goes along, as in a
// recrash report.
static void write_stalled(void) {
    const char *stalled = g_stage;
    uint64_t stalled_ms = (fl_monotonic_ns() - g_stage_start_ns) / 1000000u;
    set_stage("writing the report again without the stalled stage", 0);
    fl_report r;
    fl_report_begin(&r, g_recrash_buf, FL_RECRASH_BUF_SIZE, g_report.kind[0] ? g_report.kind : "crash");
    fl_json *w = &r.json;
    if (g_first_has_signal) write_signal(w, g_first_sig, &g_first_info, g_first_has_uc ? &g_first_uc : 0);
    begin_crashed_thread(w);
    if (g_first_has_uc) {
        if (g_first_frame0 == FL_FRAME0_INTERRUPTED) write_registers(w, &g_first_uc);
        int n = fl_unwind_context_fp(&g_first_uc, g_pcs, fl_agent_config.max_frames);
        int own = own_frames(g_pcs, n);
        fl_report_frames(w, "frames", g_pcs + own, n - own, (fl_frame0)g_first_frame0, &g_images);
    }
    fl_json_end_object(w);
    fl_json_begin_object(w, "handler_stalled");
    fl_json_string(w, "stage", stalled);
    fl_json_uint(w, "stalled_ms", stalled_ms);
    fl_json_uint(w, "deadline_ms", (uint64_t)fl_agent_config.crash_deadline_ms);
    fl_json_string(w, "unwinder", "frame_pointer");
    write_first_attempt(w);
    fl_json_end_object(w);
    if (g_images.count > 0) fl_report_images(w, &g_images);
    static char tail[FL_STDERR_TAIL];
    fl_stderr_write_tail(w, tail, sizeof tail);
    char file[128];
    if (fl_report_commit(&r, file, sizeof file) == 0) {
        char line[256];
        size_t n = fl_strlcpy(line, "faultline: the crash handler stalled while ", sizeof line);
        n += fl_strlcpy(line + n, stalled, sizeof line - n);
        fl_strlcpy(line + n, "; report written without it: ", sizeof line - n);
        notify(line, file);
    }
    fl_deadline_disarm();
}

// A fault while writing the first report: write a minimal one that says so
// and carries what the first attempt had produced (KSCrash's recrash idea).
static void write_recrash(int sig, const siginfo_t *info) {
    fl_report r;
    fl_report_begin(&r, g_recrash_buf, FL_RECRASH_BUF_SIZE, g_report.kind[0] ? g_report.kind : "crash");
    fl_json *w = &r.json;
    write_signal(w, g_first_sig, &g_first_info, g_first_has_uc ? &g_first_uc : 0);
    fl_json_begin_object(w, "recrash");
    fl_json_string(w, "stage", g_stage);
    write_signal(w, sig, info, 0);
    write_first_attempt(w);
    fl_json_end_object(w);
    // The partial report's frames refer to these images by index.
    if (g_images.count > 0) fl_report_images(w, &g_images);
    char name[128];
    if (fl_report_commit(&r, name, sizeof name) == 0) notify("faultline: fault inside the crash handler; minimal report written: ", name);
}

static void die_by(int sig) {
    // Default disposition, unblocked, raised at this thread: the process
    // ends by `sig` as it would have without us.
    fl_real_sigaction(sig, &k_default_action, 0);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, 0);
    syscall(SYS_tgkill, getpid(), fl_gettid(), sig);
    _exit(128 + sig);
}

/// What follows a signal's report.
enum after_report {
    /// The previous dispositions go back and the signal happens again into
    /// the previous one (default, ignore), which ends the process.
    AFTER_RESTORE,
    /// The agent stays installed and calls the program's handler.
    AFTER_HAND,
    /// The program's handler already ran and gave the fault back: return,
    /// and the fault or abort() goes on into the default action.
    AFTER_RETURN,
    /// A fault inside the program's handler: end the process by it.
    AFTER_DIE,
};

/// What the handler hands to the code it runs on the crash stack, and what
/// that code hands back (for re-raising the signal).
struct fault {
    int sig;
    siginfo_t *info;
    const ucontext_t *uc;
    pid_t pid, tid;
    enum after_report after;
};

static void report_crash(void *p) {
    struct fault *f = p;
    fl_altstack_suspend();  // until crash_handler puts it back (stack_switch.h)
    int saved_errno = errno;
    int cancel_state = fl_cancel_off();
    f->pid = getpid();
    f->tid = fl_gettid();
    g_first_sig = f->sig;
    g_first_info = *f->info;
    g_first_pc = 0;  // a signal's stack starts at the fault itself
    int handed = f->after == AFTER_HAND || f->after == AFTER_RETURN;
    if (f->sig == SIGABRT && t_abort_reported) t_abort_reported = 0;
    else if (!handed || atomic_fetch_add(&g_handed_reports, 1) < FL_MAX_HANDED_REPORTS)
        write_report("crash", f->sig, f->info, f->uc, FL_FRAME0_INTERRUPTED, 0, 0);
    if (!handed) restore_previous();
    if (f->after == AFTER_DIE) die_by(f->sig);
    fl_cancel_restore(cancel_state);
    errno = saved_errno;
}

static void report_recrash(void *p) {
    const struct fault *f = p;
    // The first attempt's deadline may be nearly spent: the recrash report
    // gets the full time (a stall in it ends in give_up).
    set_stage(g_stage, 0);
    write_recrash(f->sig, f->info);
    fl_deadline_disarm();
    restore_previous();
    die_by(g_first_sig);
}

static void give_up(void *unused) {
    fl_deadline_disarm();
    restore_previous();
    die_by(g_first_sig);
}

static void report_stalled(void *unused) {
    write_stalled();
    restore_previous();
    die_by(g_first_sig);
}

/// How long a waiting thread gives a report handed to the program's
/// handler to end the process (wait_for_claim) before it goes on itself.
#define FL_HANDED_GRACE_MS 100

// A thread that faults while another writes the report waits here. That
// report either ends the process (this thread dies with it), or its fault
// is handed to the program's handler, which recovers: then this returns,
// with the handler's mask back, and the caller handles this thread's fault
// afresh. `went_on` is fl_program_went_on_count() from before the claim
// was tried: a change says a thread left a program's handler with the
// program going on. A handler left in a way the agent does not see gives
// no such sign until its thread faults again: once the report is handed
// (g_handed) and the claim has stayed free for FL_HANDED_GRACE_MS without
// the process ending (a fault given back happens again into the default
// action, an abort() ends it, in microseconds), this returns too, and this
// thread's fault goes to the program's handler, as it would have without
// the agent. A report that is never finished (the reporting thread
// stopped for good) is waited for up to 10 s, then this thread dies by its
// own signal. Runs on the stack the handler was entered on, so system
// calls only (raw_syscall.h). Signals nest below it there as usual, so it
// takes the interrupted code's mask again while it waits: the writer's
// sample signal must get through to capture where this thread faulted.
static void wait_for_claim(int sig, const ucontext_t *uc, unsigned went_on) {
    uint64_t handler_mask;
    fl_raw_syscall(SYS_rt_sigprocmask, SIG_SETMASK, (long)&uc->uc_sigmask, (long)&handler_mask, FL_KERNEL_SIGSET_SIZE);
    struct timespec ms = {0, 1000000};
    int handed_ms = 0;  // consecutive milliseconds the handed report's claim was free
    for (int i = 0; i < 10000; i++) {
        handed_ms = atomic_load(&g_handed) && !atomic_load(&g_state) ? handed_ms + 1 : 0;
        if (fl_program_went_on_count() != went_on || handed_ms > FL_HANDED_GRACE_MS) {
            fl_raw_syscall(SYS_rt_sigprocmask, SIG_SETMASK, (long)&handler_mask, 0, FL_KERNEL_SIGSET_SIZE);
            return;
        }
        fl_raw_syscall(SYS_nanosleep, (long)&ms, 0, 0, 0);
    }
    // As die_by: default disposition, unblocked, raised at this thread.
    fl_kernel_sigaction dfl = {0};
    dfl.handler = (void *)SIG_DFL;
    uint64_t bit = 1ull << (sig - 1);
    fl_raw_syscall(SYS_rt_sigaction, sig, (long)&dfl, 0, FL_KERNEL_SIGSET_SIZE);
    fl_raw_syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, (long)&bit, 0, FL_KERNEL_SIGSET_SIZE);
    fl_raw_syscall(SYS_tgkill, fl_raw_syscall(SYS_getpid, 0, 0, 0, 0), fl_raw_syscall(SYS_gettid, 0, 0, 0, 0), sig, 0);
    fl_raw_syscall(SYS_exit_group, 128 + sig, 0, 0, 0);
}

// The program's handler for `sig` found at install, or NULL when it is the
// default action or ignore, or the program has set SIG_DFL since.
static struct sigaction *program_handler(int sig) {
    if (fl_fault_default_is_set(sig)) return 0;
    for (int i = 0; i < FL_CRASH_SIGNAL_COUNT; i++)
        if (fl_crash_signals[i] == sig) return fl_program_handler_is_one(&g_prev[i]) ? &g_prev[i] : 0;
    return 0;
}

// Calls the program's handler as the kernel would have delivered the
// signal to it; `frame` is in the caller's frame. SA_RESETHAND gives the
// signal its default action for later faults, as the kernel does.
static void hand_to_program(struct sigaction *prev, int sig, siginfo_t *info, void *uc, uintptr_t frame) {
    struct sigaction act = *prev;
    if (act.sa_flags & SA_RESETHAND) {
        prev->sa_flags &= ~SA_SIGINFO;
        prev->sa_handler = SIG_DFL;
    }
    fl_program_handler_call(&act, sig, info, uc, frame);
}

// Who sees the fault first and what follows its report (f->after). 0 when
// the program's handler took it and the program goes on: nothing more to do.
static inline __attribute__((always_inline)) int choose_after(struct fault *f, struct sigaction *prev) {
    f->after = AFTER_RESTORE;
    if (t_reporting) {
        // A fault while writing a report: the recrash report, never the
        // program's handler.
    } else if (fl_program_handler_faulted(f->uc) && !(prev && fl_program_handler_nests(f->sig))) {
        // The program's own handler crashed, by a signal the kernel would
        // have blocked there or that has no handler of the program's. One
        // it would have delivered (abort() in a SIGSEGV handler, with a
        // SIGABRT handler) is handed on below, inside the running one.
        f->after = AFTER_DIE;
    } else if (prev && atomic_load(&g_handed)) {
        // The program lived on after a fault its handler was handed: it
        // recovers from faults. Its handler sees this one first; one that
        // recovers never returns here (siglongjmp) and gets no report.
        hand_to_program(prev, f->sig, f->info, (void *)f->uc, (uintptr_t)f);
        // It returned. After a hardware fault the program resumes where the
        // context says: the faulting instruction again, which faults into
        // the default action the handler set (reported here, first), or
        // runs now that the handler put its cause right (a write barrier's
        // mprotect); or elsewhere (a runtime's changed context). abort()
        // goes on to end the process; after any other signal the program
        // goes on.
        if (fl_program_goes_on(f->sig, f->info)) return 0;
        f->after = AFTER_RETURN;
    } else if (prev) {
        f->after = AFTER_HAND;
    }
    return 1;
}

enum { CLAIM_WON, CLAIM_AGAIN, CLAIM_LEAVE };

// Takes the one report claim (g_state). CLAIM_AGAIN: the fault is to be
// looked at again from the start; CLAIM_LEAVE: return from the handler.
static inline __attribute__((always_inline)) int claim(struct fault *f) {
    int expected = 0;
    unsigned went_on = fl_program_went_on_count();
    if (!atomic_compare_exchange_strong(&g_state, &expected, 1)) {
        if (t_reporting) {
            // A fault while writing the report. The kernel did not deliver
            // it on the crash stack (it only stays on the thread's alternate
            // stack): this frame is at the top of that alternate stack, over
            // the first entry's frames, or below the fault when the thread
            // has none. The first attempt never resumes, so overwriting it
            // is harmless. The recrash report gets a stack of its own. A
            // fault while writing that one gives up at once (re-entering at
            // the top of the same stacks would loop forever), on the crash
            // stack, which nothing live is on any more.
            if (atomic_exchange(&g_recrashing, 1) == 0)
                fl_call_on_stack(report_recrash, f, g_recrash_stack.hi);
            fl_call_on_stack(give_up, 0, g_crash_stack.hi);
        }
        wait_for_claim(f->sig, f->uc, went_on);
        // The program lived on after the fault reported meanwhile. A
        // hardware fault happens again when the handler returns, into the
        // handler as a new fault. A signal that was sent (abort, raise,
        // kill, an int3's SIGTRAP) would be lost that way: it is handled
        // here, from the start, as if it had just arrived.
        return fl_is_hardware_fault(f->sig, f->info) ? CLAIM_LEAVE : CLAIM_AGAIN;
    }
    if (f->after == AFTER_HAND && atomic_load(&g_handed)) {
        // Another thread's report was handed to the program's handler
        // between this thread's look at g_handed and its claim (it was
        // descheduled there): the program's handler sees this fault first,
        // as every fault after a handed one. g_handed is set before that
        // claim is released, so a claim won after it sees it here.
        atomic_store(&g_state, 0);
        return CLAIM_AGAIN;
    }
    return CLAIM_WON;
}

// After the report, back on the stack the handler was entered on.
static inline __attribute__((always_inline)) void finish(struct fault *f, struct sigaction *prev) {
    if (f->after == AFTER_HAND || f->after == AFTER_RETURN) {
        // The report is written and the process may live on: the claim is
        // free for the next fault on any thread, which, once the program's
        // handler has been handed one (g_handed), goes to that handler
        // first and is reported only when given back. g_handed first: a
        // thread that wins the claim next then sees it (above).
        if (f->after == AFTER_HAND) atomic_store(&g_handed, 1);
        t_reporting = 0;
        atomic_store(&g_state, 0);
        if (f->after == AFTER_RETURN) return;
        // Called from here, below our frames with the interrupted code's
        // mask, as the signal raised again used to reach it.
        hand_to_program(prev, f->sig, f->info, (void *)f->uc, (uintptr_t)f);
        return;
    }
    if (!fl_is_hardware_fault(f->sig, f->info)) {
        // Raised again from here, back on the stack we were entered on,
        // with the signal mask of the interrupted code, as without us, into
        // the previous disposition (the default or ignore: a program's
        // handler was called above instead).
        fl_raw_syscall(SYS_rt_sigprocmask, SIG_SETMASK, (long)&f->uc->uc_sigmask, 0, FL_KERNEL_SIGSET_SIZE);
        fl_raw_syscall(SYS_tgkill, f->pid, f->tid, f->sig, 0);
    }
}

// Entered on whatever stack the thread has: the agent's 256 KiB alternate
// stack, one the program installed over it (8 KiB is common, and the
// kernel's signal frame takes 3.3 KiB of that with AVX-512), or the thread's
// own stack when it has no alternate one. So only the claim runs here, in a
// few hundred bytes and without calling libc (raw_syscall.h says why); the
// rest runs on the agent's own stacks. The switch happens always, not only
// when the current stack looks small: it costs a few instructions and no
// system call, it leaves the program's sigaltstack setting alone, and one
// path is exercised by every crash instead of a branch only rare programs
// take (and "small" cannot be judged without knowing where the current
// stack ends). Only one thread ever owns the report (g_state), so one crash
// stack suffices.
//
// Off the alternate stack, the kernel would deliver a signal at its top,
// over this handler's frames; sa_mask blocks every signal but the fault
// signals (see fl_crash_install) so none can arrive asynchronously there.
static void crash_handler(int sig, siginfo_t *info, void *ucv) {
    struct fault f = {sig, info, (const ucontext_t *)ucv, 0, 0, AFTER_RESTORE};
    if (fl_deadline_is_ours(info)) {
        // The timer aims at the reporting thread only. A signal queued just
        // before the deadline was cancelled is ignored.
        if (!t_reporting || !fl_deadline_armed()) return;
        // A stall in the second attempt (or in a recrash report) gives up.
        if (atomic_exchange(&g_recrashing, 1) == 0) fl_call_on_stack(report_stalled, 0, g_recrash_stack.hi);
        fl_call_on_stack(give_up, 0, g_crash_stack.hi);
    }
    struct sigaction *prev = program_handler(sig);
    for (;;) {
        if (!choose_after(&f, prev)) return;
        int c = claim(&f);
        if (c == CLAIM_LEAVE) return;
        if (c == CLAIM_WON) break;
    }
    t_reporting = 1;
    fl_call_on_stack(report_crash, &f, g_crash_stack.hi);
    fl_altstack_resume(f.uc);  // back on the stack we were entered on
    finish(&f, prev);
}

/// What fl_crash_report_event hands to the code it runs on the crash stack.
struct event {
    const char *kind;
    fl_section_writer extra;
    void *ctx;
    const ucontext_t *uc;
    fl_frame0 frame0;
    uintptr_t first_pc;
};

static void report_event(void *p) {
    const struct event *e = p;
    int cancel_state = fl_cancel_off();
    g_first_pc = e->first_pc;
    write_report(e->kind, 0, 0, e->uc, e->frame0, e->extra, e->ctx);
    fl_cancel_restore(cancel_state);
}

int fl_crash_report_event(const char *kind, fl_section_writer extra, void *ctx, const void *ucontext, fl_frame0 frame0,
                          uintptr_t first_pc) {
    int expected = 0;
    if (!g_buf) return -1;  // neither fl_crash_prepare nor fl_crash_install ran
    if (!atomic_compare_exchange_strong(&g_state, &expected, 1)) return -1;
    t_reporting = 1;
    g_first_sig = SIGABRT;
    memset(&g_first_info, 0, sizeof g_first_info);
    // On the crash stack, as a signal's report: the caller (a terminate
    // handler) may be on a thread with little stack left, after deep
    // recursion or on a small pthread stack, and writing takes ~11 KiB.
    // g_state is ours, so nothing else is on the crash stack. A fault while
    // writing goes to the crash handler as for a signal's report (t_reporting).
    struct event e = {kind, extra, ctx, (const ucontext_t *)ucontext, frame0, first_pc};
    fl_call_on_stack(report_event, &e, g_crash_stack.hi);
    t_abort_reported = 1;
    t_reporting = 0;
    atomic_store(&g_state, 0);
    return 0;
}

const fl_image_list *fl_crash_images(void) { return &g_images; }

int fl_crash_in_progress(void) { return atomic_load(&g_state) != 0; }

int fl_crash_prepare(void) {
    if (g_buf) return 0;
    // The stacks first: without them no report is written, so g_buf stays
    // unset (fl_crash_report_event checks it).
    if (!g_crash_stack.hi && fl_stack_map(&g_crash_stack, FL_CRASH_STACK_SIZE) != 0) return -1;
    if (!g_recrash_stack.hi && fl_stack_map(&g_recrash_stack, FL_RECRASH_STACK_SIZE) != 0) return -1;
    char *buf = mmap(0, FL_REPORT_BUF_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    char *rbuf = mmap(0, FL_RECRASH_BUF_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (buf == MAP_FAILED || rbuf == MAP_FAILED) return -1;
    g_buf = buf;
    g_recrash_buf = rbuf;
    return 0;
}

int fl_crash_install(void) {
    if (g_installed) return 0;
    if (fl_crash_prepare() != 0) return -1;
    g_describer = (fl_fault_describer)dlsym(RTLD_DEFAULT, "faultline_shim_describe_fault");
    typedef void *(*getbuf_fn)(void);
    // Asked only of a process that has the Swift runtime: a failed dlsym
    // mallocs dlerror's message (with the shim, a recorded stack).
    getbuf_fn getbuf = fl_symbol_anywhere("swift_getFatalErrorMessageBuffer")
                           ? (getbuf_fn)dlsym(RTLD_DEFAULT, "swift_getFatalErrorMessageBuffer") : 0;
    if (getbuf) g_swift_message = (_Atomic(const char *) *)getbuf();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = crash_handler;
    // SA_NODEFER: a fault inside the handler re-enters it (recrash report)
    // instead of the kernel killing us silently for a blocked SIGSEGV.
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    // Every other signal waits while the handler runs (crash_handler says
    // why), glibc's SIGSETXID too (handler_mask.h); the fault signals stay
    // open so a fault in it still re-enters.
    fl_handler_mask_fill(&sa.sa_mask);
    fl_crash_signals_del(&sa.sa_mask);
    fl_fault_default_init(fl_crash_signals, FL_CRASH_SIGNAL_COUNT, &sa);
    for (int i = 0; i < FL_CRASH_SIGNAL_COUNT; i++)
        if (sigaction(fl_crash_signals[i], &sa, &g_prev[i]) != 0) return -1;
    fl_reraised_fault_init(SIGSEGV);
    g_installed = 1;
    return 0;
}

// Only a signal whose handler is still the agent's is given back: one the
// program replaced since install is the program's already. The report
// buffers and stacks stay mapped (a handler may be running on another
// thread, and a reinstall reuses them: fl_crash_prepare is idempotent).
void fl_crash_uninstall(void) {
    if (!g_installed) return;
    for (int i = 0; i < FL_CRASH_SIGNAL_COUNT; i++) {
        int sig = fl_crash_signals[i];
        struct sigaction cur;
        if (fl_real_sigaction(sig, 0, &cur) != 0 || !(cur.sa_flags & SA_SIGINFO) || cur.sa_sigaction != crash_handler)
            continue;
        fl_real_sigaction(sig, fl_fault_default_is_set(sig) ? &k_default_action : &g_prev[i], 0);
    }
    // After the handlers are back: a SIG_DFL the program sets from now on
    // is the kernel's, and its masks are its own.
    fl_fault_default_disable();
    fl_fault_mask_let_close();
    g_installed = 0;
}
