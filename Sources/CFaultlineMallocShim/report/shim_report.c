#include "tool_log.h"
#include "shim_report.h"
#include "shim_saferead.h"
#include "shim_unmapped.h"
#include "shim_released.h"
#include "shim_guard.h"
#include "report_dir_open.h"
#include "cancel_off.h"
#include "environ_pin.h"
#include "fd_transient.h"
#include "proc_tid.h"
#include "report_file.h"
#include "shim_config.h"
#include "shim_depot.h"
#include "shim_find.h"
#include "shim_heap.h"
#include "shim_live.h"
#include "shim_stack.h"
#include "shim_suppress.h"
#include "shim_thread.h"
#include "sigsafe.h"
#include "unwinder.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <ucontext.h>
#include <unistd.h>

#define REPORT_BUF_SIZE (4u << 20)

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static char *g_buf;
static fl_image_list *g_images;
static fl_report g_report;
static uintptr_t g_pcs[SHIM_MAX_REPORT_FRAMES];

void shim_report_lock(void) { pthread_mutex_lock(&g_lock); }
void shim_report_unlock(void) { pthread_mutex_unlock(&g_lock); }

// glibc records the owner of every mutex, a normal one too.
int shim_report_locked_here(void) { return __atomic_load_n(&g_lock.__data.__owner, __ATOMIC_RELAXED) == (int)shim_tid(); }

// --- small line builder (no stdio inside the allocator) ----------------------

typedef struct line { char text[512]; size_t len; } line;
static void add(line *l, const char *s) { l->len += fl_strlcpy(l->text + l->len, s, sizeof l->text - l->len); }
static void add_u(line *l, uint64_t v) { char b[24]; b[fl_fmt_u64(b, v)] = 0; add(l, b); }
static void add_hex(line *l, uint64_t v) { char b[24]; b[fl_fmt_hex(b, v)] = 0; add(l, b); }
static void emit(line *l) {
    if (l->len > sizeof l->text - 2) l->len = sizeof l->text - 2;  // the newline always fits
    l->text[l->len++] = '\n';
    fl_log_write(l->text, l->len);
}

void shim_report_init(void) {
    const char *dir = fl_option_value(FL_OPT_REPORT_DIR);
    int fd = -1;
    if (dir && *dir) {
        fd = fl_report_dir_open(dir, 0);
        // Said once per process tree, as the agent does: the agent starting
        // after this and the processes this one starts see the variable and
        // stay quiet (preloaded alone, each one repeated the line). Before
        // main, so main's envp is pinned.
        if (fd < 0 && setenv(FL_REPORT_DIR_REFUSED_ENV, dir, 1) == 0) fl_environ_pin();
    }
    fl_report_set_dir(fd, dir);
    // Alone, the shim keeps an fd for its reports and leak checks once the
    // program has used up its own (fd_transient.h); with the agent, the
    // agent's (faultline_shim_share_fds).
    fl_fd_reserve_take();
}

__attribute__((visibility("default"))) int faultline_shim_share_report_dir(int (*report_dir)(void)) {
    return fl_report_share_dir(report_dir);
}

/// The agent's annotation writer (annotate.h), so the shim's reports carry
/// the program's annotations and phase too. Called by the agent at install.
__attribute__((visibility("default"))) int faultline_shim_share_annotations(void (*write)(fl_json *w)) {
    fl_report_set_annotations(write);
    return 1;
}

__attribute__((visibility("default"))) int faultline_shim_share_fds(int (*openat_high)(int, const char *, int, mode_t),
                                                                   void (*close_high)(int)) {
    fl_fd_transient_share(openat_high, close_high);
    return 1;
}

const char *shim_state_name(uint32_t state) {
    switch (state) {
    case SHIM_LIVE: return "live";
    case SHIM_QUARANTINED: return "quarantined";
    case SHIM_RELEASED: return "released";
    default: return "unknown";
    }
}

// Every stack the shim writes was taken by calling code (an allocator
// entry point, or this file's getcontext): frame 0 is a return address.
static void write_stack(fl_json *w, const char *key, uint32_t id, const fl_image_list *images) {
    const uintptr_t *pcs;
    int n = shim_depot_get(id, &pcs);
    if (n > 0) fl_report_frames(w, key, pcs, n, FL_FRAME0_RETURN_ADDRESS, images);
}

void shim_write_block(fl_json *w, const shim_block *copy, const void *user, uint32_t state,
                      uint64_t offset, int with_offset, const fl_image_list *images) {
    fl_json_begin_object(w, "block");
    fl_json_hex(w, "address", (uintptr_t)user);
    // A released block's first 16 header bytes belong to glibc again.
    if (state != SHIM_RELEASED) fl_json_uint(w, "size", copy->size);
    if (with_offset) fl_json_uint(w, "offset", offset);
    fl_json_string(w, "state", shim_state_name(state));
    if (state != SHIM_RELEASED && copy->alloc_tid) fl_json_int(w, "allocated_by_tid", copy->alloc_tid);
    // The top bit says the pages are protected (shim_protect.h), not whose.
    if (state == SHIM_QUARANTINED && copy->free_tid) fl_json_int(w, "freed_by_tid", copy->free_tid & 0x7fffffffu);
    fl_json_end_object(w);
    write_stack(w, "allocation_stack", copy->alloc_stack, images);
    if (state != SHIM_LIVE) write_stack(w, "free_stack", copy->free_stack, images);
}

// --- report skeleton ---------------------------------------------------------

// The program's errno when a report began (g_lock held), put back when it
// is done: with FAULTLINE_HALT_ON_ERROR=0 the free that reported returns
// to a program that may read errno (free keeps it, glibc since 2.33), and
// writing a report sets it (libunwind's first use left EAGAIN).
static int g_program_errno;
// The reporting thread's cancellation state (cancel_off.h), under g_lock.
static int g_program_cancel;

static fl_json *begin(const char *kind) {
    int saved = errno;
    pthread_mutex_lock(&g_lock);
    g_program_errno = saved;
    g_program_cancel = fl_cancel_off();
    shim_self.depth++;
    if (!g_buf) {
        void *b = mmap(0, REPORT_BUF_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        void *i = mmap(0, sizeof(fl_image_list), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (b == MAP_FAILED || i == MAP_FAILED) {
            if (b != MAP_FAILED) munmap(b, REPORT_BUF_SIZE);
            if (i != MAP_FAILED) munmap(i, sizeof(fl_image_list));
            shim_self.depth--;
            int cancel = g_program_cancel;
            pthread_mutex_unlock(&g_lock);
            fl_cancel_restore(cancel);
            errno = saved;
            return 0;
        }
        g_buf = b;
        g_images = i;
    }
    fl_images_load(g_images);
    fl_report_begin(&g_report, g_buf, REPORT_BUF_SIZE, kind);
    return &g_report.json;
}

// The calling thread, innermost frame first, without the shim's own frames:
// frame 0 is the first frame outside the shim, a return address (where the
// program's call into free, realloc… returns).
static int current_stack(uintptr_t *pcs, int max) {
    ucontext_t uc;
    getcontext(&uc);
    int n = fl_unwind_context(&uc, pcs, max);
    int self = fl_images_find(g_images, (uintptr_t)&current_stack);
    int skip = 0;
    if (self >= 0) {
        const fl_image *im = &g_images->images[self];
        while (skip < n - 1 && pcs[skip] >= im->start && pcs[skip] < im->end) skip++;
    }
    for (int i = skip; i < n; i++) pcs[i - skip] = pcs[i];
    return n - skip;
}

static int write_thread(fl_json *w) {
    uint32_t tid = shim_tid();
    fl_json_begin_object(w, "crashed_thread");
    fl_json_int(w, "tid", tid);
    // The calling thread's own entry: /proc/self/task/<tid> is not this
    // thread when /proc belongs to another pid namespace (unshare --pid
    // without a /proc of its own).
    char name[64], path[64];
    fl_proc_self_path(path, sizeof path, "comm");
    ssize_t nl = fl_read_file(path, name, sizeof name);
    if (nl > 0) {
        while (nl > 0 && name[nl - 1] == '\n') name[--nl] = 0;
        fl_json_string(w, "name", name);
    }
    fl_json_bool(w, "main", (pid_t)tid == getpid());
    int n = current_stack(g_pcs, shim_cfg.max_frames);
    fl_report_frames(w, "frames", g_pcs, n, FL_FRAME0_RETURN_ADDRESS, g_images);
    fl_json_end_object(w);
    return n;
}

// When fd 2 is a pipe that another thread drains (the agent's stderr
// capture), wait until it is empty so nothing said before the halt is lost.
static void let_stderr_drain(void) {
    struct stat st;
    if (fstat(2, &st) != 0 || !S_ISFIFO(st.st_mode)) return;
    uint64_t deadline = fl_monotonic_ns() + 200000000ull;
    int pending = 0;
    while (ioctl(2, FIONREAD, &pending) == 0 && pending > 0 && fl_monotonic_ns() < deadline) fl_sleep_ns(1000000);
    fl_sleep_ns(5000000);  // the last piece read may still be being forwarded
}

// Ends the process after a report (FAULTLINE_HALT_ON_ERROR=1). At exit the
// program's stdio buffers are flushed first, as exit() would have.
static void halt(int at_exit) {
    line l = {.len = 0};
    add(&l, "faultline: stopping the process with exit code ");
    add_u(&l, (uint64_t)shim_cfg.exit_code);
    add(&l, " (FAULTLINE_HALT_ON_ERROR=0 continues instead)");
    emit(&l);
    if (at_exit) fflush(0);
    let_stderr_drain();
    _exit(shim_cfg.exit_code);
}

static int g_no_halt;  // set while a leak report is finished: those never halt
static int g_hold_halt, g_halt_held;  // exit checks: halt once all have reported

void shim_report_hold_halt(void) { g_hold_halt = 1; }

void shim_report_release_halt(void) {
    g_hold_halt = 0;
    if (g_halt_held) halt(1);
}

static void finish(fl_json *w, line *summary, int at_exit) {
    fl_json_begin_object(w, "shim");
    fl_json_uint(w, "quarantine_bytes", shim_cfg.quarantine_bytes);
    fl_json_uint(w, "quarantine_count", shim_cfg.quarantine_count);
    fl_json_uint(w, "quarantine_big_bytes", shim_cfg.quarantine_big_bytes);
    fl_json_uint(w, "scribble_limit", shim_cfg.scribble_limit);
    // What a write after free the release did not see may have hidden in.
    fl_json_uint(w, "scribble_sample", (uint64_t)shim_cfg.scribble_sample);
    fl_json_uint(w, "fill_limit", shim_cfg.fill_limit);
    fl_json_bool(w, "stacks", shim_cfg.stacks);
    fl_json_string(w, "stack_unwinder", shim_stack_method());
    fl_json_bool(w, "halt_on_error", shim_cfg.halt_on_error);
    fl_json_end_object(w);
    fl_report_images(w, g_images);
    fl_json_begin_object(w, "capture");
    fl_json_string(w, "unwinder", fl_unwinder_method());
    fl_json_end_object(w);
    char name[128];
    if (fl_report_commit(&g_report, name, sizeof name) == 0) {
        add(summary, "; report written: ");
        add(summary, name);
        emit(summary);
    } else if (g_report.json.overflowed) {
        // fl_report_commit has said so; nothing was printed or written.
        add(summary, "; the report did not fit into its buffer and was dropped");
        emit(summary);
    } else {
        // fl_report_commit has said why and printed the report.
        add(summary, "; the report is on stderr above (not in a file)");
        emit(summary);
    }
    int saved = g_program_errno, cancel = g_program_cancel;
    shim_self.depth--;
    pthread_mutex_unlock(&g_lock);
    errno = saved;
    if (shim_cfg.halt_on_error && !g_no_halt) {
        if (g_hold_halt) g_halt_held = 1;
        else halt(at_exit);  // still off: halt's writes and sleeps must reach _exit
    }
    fl_cancel_restore(cancel);
    errno = saved;
}

fl_json *shim_report_open(const char *kind, const fl_image_list **images) {
    if (!shim_ready) return 0;
    fl_json *w = begin(kind);
    if (w) *images = g_images;
    return w;
}

void shim_report_close(fl_json *w, const char *summary) {
    line l = {.len = 0};
    add(&l, summary);
    g_no_halt = 1;
    finish(w, &l, 0);
    g_no_halt = 0;
}

void shim_report_stack(fl_json *w, const char *key, uint32_t id) { write_stack(w, key, id, g_images); }

// FAULTLINE_MAX_HEAP_REPORTS: error reports written so far in this process,
// and errors left unreported once that many were.
static unsigned g_reports_taken;
static uint64_t g_reports_dropped;

int shim_report_slot(int quiet) {
    unsigned taken = __atomic_fetch_add(&g_reports_taken, 1, __ATOMIC_RELAXED);
    if (taken < (unsigned)shim_cfg.max_reports) return 1;
    __atomic_store_n(&g_reports_taken, (unsigned)shim_cfg.max_reports, __ATOMIC_RELAXED);  // no wrap-around
    // Only the first error dropped during the run says so (the process may
    // be killed before it exits and says how many in all).
    if (__atomic_fetch_add(&g_reports_dropped, 1, __ATOMIC_RELAXED) == 0 && !quiet) {
        line l = {.len = 0};
        add(&l, "faultline: malloc shim: FAULTLINE_MAX_HEAP_REPORTS=");
        add_u(&l, (uint64_t)shim_cfg.max_reports);
        add(&l, " reports written; later heap errors are counted, not reported (raise it to see more)");
        emit(&l);
    }
    return 0;
}

uint64_t shim_report_dropped(void) { return __atomic_load_n(&g_reports_dropped, __ATOMIC_RELAXED); }

void shim_report_after_fork_child(void) {
    g_reports_taken = 0;
    g_reports_dropped = 0;
}

// Before the constructor ran there is no report machinery: one line only.
static int early(const char *what, const void *p) {
    line l = {.len = 0};
    add(&l, "faultline: ");
    add(&l, what);
    add(&l, " of ");
    add_hex(&l, (uintptr_t)p);
    add(&l, " during start-up (no report: the shim is not initialised yet)");
    emit(&l);
    return 1;
}

// --- the reports -------------------------------------------------------------

// The block being released wrongly, and the releasing thread's stack
// (`n` frames write_thread left in g_pcs) under `stack_key`.
static void write_released(fl_json *w, const shim_block *copy, const void *p, uint32_t state, const char *stack_key, int n) {
    shim_write_block(w, copy, p, state, 0, 0, g_images);
    fl_report_frames(w, stack_key, g_pcs, n, FL_FRAME0_RETURN_ADDRESS, g_images);
}

// Starts the report of a release error (`what` names it before start-up,
// when only one line can be said); NULL when none is to be written: inside
// the shim, suppressed (`suppress`, matched against the releasing thread's
// stack and the block's stacks `alloc_stack` and `free_stack`), or past
// FAULTLINE_MAX_HEAP_REPORTS. A suppressed error takes no report slot.
static fl_json *begin_release_error(const char *kind, const char *what, const void *p, fl_supp_kind suppress,
                                    uint32_t alloc_stack, uint32_t free_stack) {
    if (!shim_ready) { early(what, p); return 0; }
    if (shim_self.depth > 0 || shim_suppress_error(suppress, 1, alloc_stack, free_stack) || !shim_report_slot(0)) return 0;
    return begin(kind);
}

// Opens a release error's own section: `key` (the operation) and the
// pointer; the caller adds its fields and closes it.
static void begin_call(fl_json *w, const char *section, const char *key, const char *operation, const void *p) {
    fl_json_begin_object(w, section);
    fl_json_string(w, key, operation);
    fl_json_hex(w, "pointer", (uintptr_t)p);
}

// "faultline: KIND: OPERATION(0x…)", the start of a release error's summary.
static void add_call(line *l, const char *kind, const char *operation, const void *p) {
    add(l, "faultline: ");
    add(l, kind);
    add(l, ": ");
    add(l, operation);
    add(l, "(");
    add_hex(l, (uintptr_t)p);
    add(l, ")");
}

void shim_report_double_free(const void *p, uint32_t state, const char *operation) {
    // A released block's header may be gone with memory glibc unmapped (and
    // the address mapped again since, even for this report's buffer).
    shim_block copy;
    uint32_t as, fs;
    if (shim_guard_copy(p, &copy)) {
        // A guarded block: its pages are PROT_NONE, the copy is the guard table's.
    } else if (state == SHIM_RELEASED && shim_unmapped_find(p, &copy)) {
    } else if (shim_safe_read(shim_block_from_user(p), &copy, sizeof copy) == 0 &&
               copy.check == shim_block_checksum_at(&copy, shim_block_from_user(p))) {
    } else if (state == SHIM_RELEASED && shim_released_find(p, &as, &fs)) {
        // glibc overwrote the header: the stacks kept at release.
        __builtin_memset(&copy, 0, sizeof copy);
        copy.alloc_stack = as;
        copy.free_stack = fs;
    } else if (shim_safe_read(shim_block_from_user(p), &copy, sizeof copy) != 0) {
        __builtin_memset(&copy, 0, sizeof copy);
    }
    fl_json *w = begin_release_error("double_free", "double free", p, FL_SUPP_DOUBLE_FREE, copy.alloc_stack, copy.free_stack);
    if (!w) return;
    int n = write_thread(w);
    begin_call(w, "double_free", "operation", operation, p);
    fl_json_end_object(w);
    write_released(w, &copy, p, state, "second_free_stack", n);
    line l = {.len = 0};
    add_call(&l, "double_free", operation, p);
    add(&l, " of a block already freed");
    if (state != SHIM_RELEASED) { add(&l, " ("); add_u(&l, copy.size); add(&l, " bytes)"); }
    finish(w, &l, 0);
}

// How a block of `kind` was allocated, as reports name it (malloc stands
// for its whole family: calloc, realloc, memalign, strdup…).
static const char *alloc_name(unsigned kind) {
    switch (kind) {
    case SHIM_KIND_MALLOC: return "malloc";
    case SHIM_KIND_NEW: return "operator new";
    case SHIM_KIND_NEW_ARRAY: return "operator new[]";
    default: return "unknown";
    }
}

// The start of a mismatch's section: the thread, then `kind`'s object
// with the call and how the block was allocated; returns write_thread's
// count for write_released. The caller adds its fields and ends it with
// end_mismatch.
static int begin_mismatch(fl_json *w, const char *kind, const char *operation, const void *p, const char *allocation) {
    int n = write_thread(w);
    begin_call(w, kind, "deallocation", operation, p);
    fl_json_string(w, "allocation", allocation);
    return n;
}

// Ends the section begin_mismatch began, writes the live block and its
// stacks, and starts the stderr line with the call.
static void end_mismatch(fl_json *w, line *l, const char *kind, const char *operation, const void *p, const shim_block *copy, int n) {
    fl_json_end_object(w);
    write_released(w, copy, p, SHIM_LIVE, "deallocation_stack", n);
    l->len = 0;
    add_call(l, kind, operation, p);
}

void shim_report_alloc_dealloc_mismatch(const void *p, const char *operation) {
    // Live, and this thread is releasing it: its header is whole.
    shim_block copy = *shim_block_from_user(p);
    fl_json *w = begin_release_error("alloc_dealloc_mismatch", "alloc-dealloc mismatch", p, FL_SUPP_ALLOC_DEALLOC_MISMATCH, copy.alloc_stack, 0);
    if (!w) return;
    const char *allocation = alloc_name(copy.alloc_kind);
    int n = begin_mismatch(w, "alloc_dealloc_mismatch", operation, p, allocation);
    line l;
    end_mismatch(w, &l, "alloc_dealloc_mismatch", operation, p, &copy, n);
    add(&l, " of a ");
    add_u(&l, copy.size);
    add(&l, "-byte block allocated with ");
    add(&l, allocation);
    // Reported, then released as asked, as valgrind does: the shim's
    // allocator serves every kind alike, so the program is in no danger
    // (the dangerous form, delete of a destructed new[] array, frees a
    // pointer past the array's count: an invalid_free, which halts). A
    // halt stopped real programs with a harmless, long-standing mismatch
    // (groff's troff, and so man).
    g_no_halt = 1;
    finish(w, &l, 0);
    g_no_halt = 0;
}

// " alignment 64", or " the default alignment" for `bytes` 0.
static void add_alignment(line *l, uint64_t bytes) {
    if (bytes) { add(l, "alignment "); add_u(l, bytes); }
    else add(l, "the default alignment");
}

void shim_report_new_delete_type_mismatch(const void *p, const char *operation, size_t size, size_t align) {
    // Live, and this thread is releasing it: its header is whole.
    shim_block copy = *shim_block_from_user(p);
    fl_json *w = begin_release_error("new_delete_type_mismatch", "new-delete type mismatch", p, FL_SUPP_NEW_DELETE_TYPE_MISMATCH, copy.alloc_stack, 0);
    if (!w) return;
    const char *allocation = alloc_name(copy.alloc_kind);
    uint64_t allocated_align = shim_new_align_bytes(copy.new_align);
    int wrong_size = size && size != copy.size, wrong_align = shim_new_align_code(align) != copy.new_align;
    int n = begin_mismatch(w, "new_delete_type_mismatch", operation, p, allocation);
    fl_json_uint(w, "allocated_size", copy.size);
    if (size) fl_json_uint(w, "deallocated_size", size);  // absent: an unsized delete
    fl_json_uint(w, "allocated_alignment", allocated_align);
    fl_json_uint(w, "deallocated_alignment", align);
    line l;
    end_mismatch(w, &l, "new_delete_type_mismatch", operation, p, &copy, n);
    add(&l, " given ");
    if (wrong_size) { add(&l, "size "); add_u(&l, size); }
    if (wrong_size && wrong_align) add(&l, " and ");
    if (wrong_align) add_alignment(&l, align < 8 ? 0 : align);
    add(&l, " of a ");
    add_u(&l, copy.size);
    add(&l, "-byte block allocated with ");
    add(&l, allocation);
    if (wrong_align && allocated_align) { add(&l, " aligned to "); add_u(&l, allocated_align); }
    else if (wrong_align) add(&l, " (default alignment)");
    // Reported and freed as asked, like alloc_dealloc_mismatch: the
    // shim's allocator needs neither size nor alignment to free a block.
    g_no_halt = 1;
    finish(w, &l, 0);
    g_no_halt = 0;
}

typedef struct containing { uintptr_t addr; const shim_block *found; } containing;

static void find_containing(const shim_block *b, void *ctx) {
    containing *c = ctx;
    uintptr_t user = (uintptr_t)shim_block_user(b);
    if (!c->found && c->addr > user && c->addr - user < b->size) c->found = b;
}

// A live block more than the scan window long that holds `addr`: from the
// live lists (kept while leak tracking is on), else in glibc's heap by
// scanning back as far as the largest block the shim had from it (blocks
// of 128 KiB and more come from there once glibc's mmap threshold rose:
// shim_glibc.c), and elsewhere by looking for a header at the start of
// each page up to 256 MiB back (glibc maps big blocks on their own, the
// header 16 or 32 bytes into the first page); 0 when none.
static int find_big_live_block(uintptr_t addr, shim_found *out) {
    if (!shim_live_on) {
        size_t largest = shim_heap_largest_block();
        if (largest > SHIM_FIND_WINDOW && shim_heap_holds(addr, 1)) return shim_find_block(addr, largest, out) && out->state == SHIM_LIVE;
        uintptr_t page = addr & ~(uintptr_t)4095;
        for (int n = 0; n < 65536 && page > 4096; n++, page -= 4096) {
            if (!shim_find_block(page + 64, 48, out)) continue;
            // The nearest header decides, as in shim_find_block.
            out->offset = addr - (uintptr_t)shim_block_user(out->header);
            return out->state == SHIM_LIVE && out->offset < out->copy.size;
        }
        return 0;
    }
    containing c = {addr, 0};
    shim_live_lock_all();
    shim_live_each(find_containing, &c);
    if (c.found) {
        out->header = (shim_block *)c.found;
        out->copy = *c.found;
        out->state = SHIM_LIVE;
        out->offset = addr - (uintptr_t)shim_block_user(c.found);
    }
    shim_live_unlock_all();
    return c.found != 0;
}

// The block `p` points into, near or far; 0 when none.
static int find_containing_block(const void *p, shim_found *f) {
    return shim_find_block((uintptr_t)p, SHIM_FIND_WINDOW, f) || find_big_live_block((uintptr_t)p, f);
}

void shim_report_invalid_free(const void *p, const char *operation) {
    // The block is looked for (up to 256 MiB back) before the report only
    // when a suppression may need its stacks.
    shim_found f;
    int found = -1;
    if (shim_ready && shim_self.depth == 0 && shim_suppress_wanted(FL_SUPP_INVALID_FREE)) found = find_containing_block(p, &f);
    fl_json *w = begin_release_error("invalid_free", "invalid free", p, FL_SUPP_INVALID_FREE, found > 0 ? f.copy.alloc_stack : 0,
                                     found > 0 && f.state != SHIM_LIVE ? f.copy.free_stack : 0);
    if (!w) return;
    if (found < 0) found = find_containing_block(p, &f);
    write_thread(w);
    const char *reason = !found && shim_heap_trimmed((uintptr_t)p - SHIM_HEADER_SIZE)
                           ? "points into heap memory given back to the system since (most likely a block freed before)"
                       : !found ? "not a pointer that malloc returned"
                       : f.state == SHIM_LIVE ? "points inside a live block, not at its start"
                                              : "points inside a freed block, not at its start";
    begin_call(w, "invalid_free", "operation", operation, p);
    fl_json_string(w, "reason", reason);
    fl_json_end_object(w);
    if (found) shim_write_block(w, &f.copy, shim_block_user(f.header), f.state, f.offset, 1, g_images);
    line l = {.len = 0};
    add_call(&l, "invalid_free", operation, p);
    add(&l, ": ");
    add(&l, reason);
    if (found) { add(&l, " (offset "); add_u(&l, f.offset); add(&l, " of "); add_u(&l, f.copy.size); add(&l, " bytes)"); }
    finish(w, &l, 0);
}

int shim_report_write_after_free(const shim_block *b, size_t offset, size_t length, const char *detection, uint64_t changed_blocks) {
    if (!shim_ready || shim_self.depth > 0) return 1;
    // Matched by the block's stacks only: the finding thread is whichever
    // free pushed the block out, or exit.
    if (shim_suppress_error(FL_SUPP_WRITE_AFTER_FREE, 0, b->alloc_stack, b->free_stack)) return 1;
    // The exit check says itself how many of its groups were left out.
    if (!shim_report_slot(changed_blocks > 0)) return 0;
    fl_json *w = begin("write_after_free");
    if (!w) return 1;
    shim_block copy = *b;
    const unsigned char *user = shim_block_user(b);
    write_thread(w);
    fl_json_begin_object(w, "write_after_free");
    fl_json_uint(w, "offset", offset);
    fl_json_uint(w, "length", length);
    fl_json_string(w, "detected", detection);
    // The first changed bytes, as hex, so the value written can be recognised.
    static const char hex[] = "0123456789abcdef";
    char bytes[65];
    size_t k = length < 32 ? length : 32;
    for (size_t i = 0; i < k; i++) {
        bytes[2 * i] = hex[user[offset + i] >> 4];
        bytes[2 * i + 1] = hex[user[offset + i] & 15];
    }
    bytes[2 * k] = 0;
    fl_json_string(w, "bytes", bytes);
    if (changed_blocks) fl_json_uint(w, "changed_blocks", changed_blocks);
    fl_json_end_object(w);
    shim_write_block(w, &copy, user, SHIM_QUARANTINED, 0, 0, g_images);
    line l = {.len = 0};
    add(&l, "faultline: write_after_free: ");
    add_u(&l, length);
    add(&l, " byte(s) at offset ");
    add_u(&l, offset);
    add(&l, " of freed block ");
    add_hex(&l, (uintptr_t)user);
    add(&l, " (");
    add_u(&l, copy.size);
    add(&l, " bytes) changed after free");
    if (changed_blocks > 1) {
        add(&l, ", and ");
        add_u(&l, changed_blocks - 1);
        add(&l, " more block(s) with the same allocation and free stacks");
    }
    finish(w, &l, fl_streq(detection, "exit_check"));
    return 1;
}

// --- for the reports of other files (shim_report_overflow.c) ----------------

fl_json *shim_report_begin_error(const char *kind, const void *p) {
    if (!shim_ready) { early(kind, p); return 0; }
    if (shim_self.depth > 0 || !shim_report_slot(0)) return 0;
    return begin(kind);
}

int shim_report_thread(fl_json *w) { return write_thread(w); }

const fl_image_list *shim_report_images(void) { return g_images; }

void shim_report_end_error(fl_json *w, const char *summary, int at_exit) {
    line l = {.len = 0};
    add(&l, summary);
    finish(w, &l, at_exit);
}
