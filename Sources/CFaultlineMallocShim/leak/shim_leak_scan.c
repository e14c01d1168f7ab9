// The reachability scan. Roots: every readable, writable, private mapping
// in /proc/self/maps (image data and bss, anonymous memory the program
// mapped itself, other threads' alternate stacks, the main thread's static
// TLS) minus the live blocks inside them and the shim's own memory; each
// thread's stack from its stack pointer up (not the dead frames below);
// each parked thread's registers; the static TLS next to each thread
// pointer. Then through the heap, conservatively: every aligned word that
// points into a live block's bytes (interior pointers included) marks it.
#include "tool_log.h"
#include "shim_leak.h"
#include "shim_leak_ended.h"
#include "shim_arena.h"
#include "shim_config.h"
#include "shim_depot.h"
#include "shim_heapsort.h"
#include "shim_live.h"
#include "shim_saferead.h"
#include "shim_thread.h"
#include "fd_transient.h"
#include "page_size.h"
#include "proc_tid.h"
#include "sigsafe.h"
#include "solo_call.h"
#include "thread_count.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define CHUNK (64u << 10)
#define MAPS_CAP (8u << 20)
// The shim's own memory, and the stacks of ended threads (shim_leak_ended.h).
#define MAX_EXCLUDE (16 + 4096)
// Blocks at least this big are read through the kernel (a program may have
// mprotect-ed part of one); smaller ones directly.
#define DIRECT_READ_LIMIT 4096

// Pagemap entries read at once: 512 pages, 2 MiB of address space with
// 4 KiB pages.
#define PAGEMAP_BATCH 512
#define PM_PRESENT (1ull << 63)
#define PM_SWAPPED (1ull << 62)

typedef struct range { uintptr_t lo, hi; } range;

typedef struct scanner {
    leak_block *b;
    uint64_t n;
    uint32_t *work;
    uint64_t top;
    uintptr_t lo, hi;    // envelope of the live blocks
    char *chunk;         // CHUNK bytes
    range *ex;           // MAX_EXCLUDE (g_exclude: one scan at a time, under the check's lock)
    int nex;
    uint64_t root_bytes;
    uint8_t mark_as;     // LEAK_REACHABLE, then LEAK_INDIRECT
    uint64_t reached;    // blocks marked LEAK_REACHABLE so far
    int64_t self;        // block being scanned in the lost phase (not marked by itself)
    uint32_t leader;     // block whose flood runs in the lost phase: what it marks hangs from it
    pid_t pid;           // the scanning thread's id, for process_vm_readv (below)
    int maps_errno;      // set when the calling thread's maps could not be read: no scan
    int pagemap;         // the calling thread's pagemap, or -1: every page is read
    int file_backed;     // the root being read maps a file: every page is read
    uint64_t pm[PAGEMAP_BATCH];
} scanner;

static void *map(size_t n) {
    void *p = mmap(0, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? 0 : p;
}

// --- collecting and sorting the live blocks ----------------------------------

typedef struct fill_ctx { leak_block *b; uint64_t n, cap; } fill_ctx;

static void fill(const shim_block *h, int inherited, void *vctx) {
    fill_ctx *c = vctx;
    if (c->n >= c->cap) return;
    leak_block *e = &c->b[c->n++];
    e->user = (uintptr_t)shim_block_user(h);
    e->size = h->size;
    e->stack = h->alloc_stack;
    e->tid = h->alloc_tid;
    e->listed = (uint32_t)(c->n - 1);
    e->cls = LEAK_UNVISITED;
    e->scanned = 0;
    e->inherited = (uint8_t)inherited;
    e->owner = 0;  // its own index once sorted
}

// By address (for the binary search in `find`).
#define LOWER_ADDRESS(x, y) ((x)->user < (y)->user)
SHIM_DEFINE_HEAPSORT(sort_blocks, leak_block, LOWER_ADDRESS)

// Index of the block whose bytes contain `p`, or -1.
static inline int64_t find(const scanner *s, uintptr_t p) {
    uint64_t lo = 0, hi = s->n;
    while (lo < hi) {
        uint64_t mid = (lo + hi) / 2;
        if (s->b[mid].user <= p) lo = mid + 1; else hi = mid;
    }
    if (lo == 0) return -1;
    const leak_block *e = &s->b[lo - 1];
    uint64_t len = e->size ? e->size : 1;
    return p - e->user < len ? (int64_t)(lo - 1) : -1;
}

// --- marking -----------------------------------------------------------------

// Every live block is reachable already: no root or block read from here on
// can change a verdict, so the reachable phase stops reading. A short
// process's few blocks are all reached in its first mappings (libc's data,
// the heap), and the rest of its roots — the agent's buffers, stacks, TLS —
// were most of the exit check's cost (about 0.8 ms of `/bin/true`). With no
// live block at all nothing is read.
static inline int all_reached(const scanner *s) {
    return s->mark_as == LEAK_REACHABLE && s->reached == s->n;
}

static inline void consider(scanner *s, uintptr_t w) {
    if (w < s->lo || w >= s->hi) return;
    int64_t i = find(s, w);
    if (i < 0 || i == s->self) return;
    leak_block *e = &s->b[i];
    if (e->cls == LEAK_REACHABLE || e->cls == s->mark_as) return;
    e->cls = s->mark_as;
    if (s->mark_as == LEAK_INDIRECT) e->owner = s->leader;
    else s->reached++;
    s->work[s->top++] = (uint32_t)i;
}

static void scan_words(scanner *s, const void *p, size_t n) {
    const uintptr_t *w = p;
    for (size_t i = 0; i < n / sizeof(uintptr_t); i++) consider(s, w[i]);
}

// Reads [lo, hi) a page at a time through shim_safe_read, which copies
// through a pipe once process_vm_readv is refused; unreadable pages are
// skipped.
static void scan_by_pages(scanner *s, uintptr_t lo, uintptr_t hi) {
    while (lo < hi && !all_reached(s)) {
        uintptr_t end = (lo | 4095) + 1;
        size_t n = (end < hi ? end : hi) - lo;
        if (shim_safe_read((const void *)lo, s->chunk, n) == 0) {
            scan_words(s, s->chunk, n);
            s->root_bytes += n;
        }
        lo += n;
    }
}

// Reads [lo, hi) through the kernel in chunks; unreadable pages are skipped.
int shim_leak_debug_roots;
static void read_range(scanner *s, uintptr_t lo, uintptr_t hi) {
    pid_t pid = s->pid;
    while (lo < hi && !all_reached(s)) {
        size_t n = hi - lo < CHUNK ? hi - lo : CHUNK;
        struct iovec local = {s->chunk, n}, remote = {(void *)lo, n};
        // Counts and flags as unsigned long: syscall() is variadic and an int
        // leaves the upper half of the register undefined (EINVAL at random).
        ssize_t got = syscall(SYS_process_vm_readv, (long)pid, &local, 1ul, &remote, 1ul, 0ul);
        // A seccomp filter (many sandboxes) refuses the call outright: no
        // root was read and every block was called lost.
        if (got < 0 && (errno == EPERM || errno == ENOSYS)) {
            scan_by_pages(s, lo, hi);
            return;
        }
        if (got > 0) {
            scan_words(s, s->chunk, (size_t)got);
            s->root_bytes += (uint64_t)got;
            lo += (uintptr_t)got;
            if ((size_t)got == n) continue;
        }
        if (shim_leak_debug_roots) {
            char l[128]; size_t k = fl_strlcpy(l, "short ", sizeof l);
            k += fl_fmt_hex(l + k, lo); l[k++] = ' '; k += fl_fmt_i64(l + k, got); l[k++] = ' '; k += fl_fmt_i64(l + k, errno); l[k++] = '\n';
            fl_log_write(l, k);
        }
        // Unreadable (or partly): skip to the next page.
        lo = (lo + 4096) & ~(uintptr_t)4095;
    }
}

// Reads [lo, hi) as read_range does, except the pages the kernel says were
// never touched: neither present nor swapped out, in anonymous memory, they
// read as zeros and hold no pointer. The agent's report buffers and stacks,
// reserved and lazily backed, are about 40 MB of them in every process, and
// reading them (which maps the zero page in, a page at a time) made the exit
// check of `/bin/true` cost 5 ms instead of 0.3. A file mapping's untouched
// page holds the file's bytes, so those are read whole; so is everything
// when the pagemap cannot be read.
static void scan_safely(scanner *s, uintptr_t lo, uintptr_t hi) {
    lo = (lo + 7) & ~(uintptr_t)7;
    if (lo >= hi || all_reached(s)) return;
    if (shim_leak_debug_roots && hi - lo >= 4096) {
        char l[128]; size_t n = fl_strlcpy(l, "root ", sizeof l);
        n += fl_fmt_hex(l + n, lo); l[n++] = ' '; n += fl_fmt_hex(l + n, hi); l[n++] = '\n';
        fl_log_write(l, n);
    }
    size_t page = fl_page_size();
    if (s->pagemap < 0 || s->file_backed || hi - lo < page) { read_range(s, lo, hi); return; }
    while (lo < hi && !all_reached(s)) {
        uintptr_t first = lo & ~(uintptr_t)(page - 1);
        size_t want = (hi - first + page - 1) / page;
        if (want > PAGEMAP_BATCH) want = PAGEMAP_BATCH;
        ssize_t got = pread(s->pagemap, s->pm, want * sizeof(uint64_t), (off_t)(first / page * sizeof(uint64_t)));
        if (got < (ssize_t)sizeof(uint64_t)) { read_range(s, lo, hi); return; }
        size_t pages = (size_t)got / sizeof(uint64_t);
        uintptr_t run = 0;  // start of the current run of touched pages, or 0
        for (size_t i = 0; i < pages; i++) {
            uintptr_t a = first + i * page, b = a + page;
            if (a < lo) a = lo;
            if (b > hi) b = hi;
            if (s->pm[i] & (PM_PRESENT | PM_SWAPPED)) {
                if (!run) run = a;
            } else if (run) {
                read_range(s, run, a);
                run = 0;
            }
        }
        uintptr_t end = first + pages * page;
        if (end > hi) end = hi;
        if (run) read_range(s, run, end);
        lo = end;
    }
}

// A root range minus the shim's own memory and the live blocks inside it.
static void scan_root(scanner *s, uintptr_t lo, uintptr_t hi) {
    for (int i = 0; i < s->nex; i++) {
        const range *x = &s->ex[i];
        if (x->lo < hi && x->hi > lo) {
            if (x->lo > lo) scan_root(s, lo, x->lo);
            if (x->hi < hi) scan_root(s, x->hi, hi);
            return;
        }
    }
    // First block ending after lo.
    uint64_t a = 0, b = s->n;
    while (a < b) {
        uint64_t mid = (a + b) / 2;
        if (s->b[mid].user + s->b[mid].size <= lo) a = mid + 1; else b = mid;
    }
    uintptr_t cur = lo;
    for (uint64_t i = a; i < s->n && cur < hi; i++) {
        uintptr_t start = s->b[i].user - SHIM_HEADER_SIZE, end = s->b[i].user + s->b[i].size;
        if (start >= hi) break;
        // Gaps under 64 bytes between blocks hold only glibc's chunk size
        // word and the tail padding of the block before: nothing to read
        // (and one read each would cost a syscall per block in a dense heap).
        if (start > cur && start - cur >= 64) scan_safely(s, cur, start);
        if (end > cur) cur = end;
    }
    if (cur < hi) scan_safely(s, cur, hi);
}

static void scan_block(scanner *s, uint64_t i) {
    leak_block *e = &s->b[i];
    if (e->scanned) return;
    e->scanned = 1;
    if (e->size < DIRECT_READ_LIMIT) scan_words(s, (const void *)e->user, e->size);
    else scan_safely(s, e->user, e->user + e->size);
}

static void drain(scanner *s) {
    while (s->top && !all_reached(s)) scan_block(s, s->work[--s->top]);
    // Stopped early with everything reached: what is left on the work list
    // would change nothing (and must not be flooded by the lost phase).
    s->top = 0;
}

// Each indirectly lost block's owner becomes the definitely lost block it
// hangs from. A leader whose flood a later block's reached is indirectly
// lost itself, owned by that later one, and what it held goes with it (as
// valgrind merges cliques): owner links are followed to a definitely lost
// block, and shortened on the way back.
static void resolve_owners(scanner *s) {
    for (uint64_t i = 0; i < s->n; i++) {
        if (s->b[i].cls != LEAK_INDIRECT) continue;
        uint32_t top = s->b[i].owner;
        for (uint64_t hops = 0; s->b[top].cls == LEAK_INDIRECT && hops < s->n; hops++) top = s->b[top].owner;
        for (uint32_t k = (uint32_t)i; s->b[k].cls == LEAK_INDIRECT && s->b[k].owner != top;) {
            uint32_t next = s->b[k].owner;
            s->b[k].owner = top;
            k = next;
        }
    }
}

// --- roots -------------------------------------------------------------------

// Static TLS size (glibc's _dl_get_tls_static_info), looked up at start-up.
size_t shim_leak_static_tls;

static void scan_tls(scanner *s, uintptr_t tp) {
    if (!tp) return;
    size_t tls = shim_leak_static_tls ? shim_leak_static_tls : 4096;
    // A thread still ending, parked in a later key destructor: its stack and
    // descriptor (its argument, its result) are excluded with its stack
    // block, but its TLS variables still hold what glibc frees after the
    // destructors (the dlerror buffer of a failed dlsym: LeakSanitizer's
    // detached_thread_dlsym), so the TLS blocks alone are read.
    for (int i = 0; i < s->nex; i++)
        if (tp >= s->ex[i].lo && tp < s->ex[i].hi) {
#if defined(__x86_64__)
            scan_safely(s, tp - tls, tp);  // variant II: the TLS blocks end at the TCB
#else
            scan_safely(s, tp + 16, tp + 16 + tls);  // variant I: they follow the 16-byte TCB
#endif
            return;
        }
#if defined(__x86_64__)
    scan_safely(s, tp - tls, tp + 2560);  // TLS blocks, then the TCB/struct pthread
#else
    scan_safely(s, tp - 2560, tp + shim_leak_static_tls + 4096);
#endif
}

static const char *field(const char *p, const char *end) {
    while (p < end && *p != ' ') p++;
    while (p < end && *p == ' ') p++;
    return p;
}

// Roots read first: the images' data and bss, the brk heap, the main stack
// and small anonymous mappings (what holds a short process's pointers);
// big anonymous mappings (the agent's reserved buffers, other threads'
// stacks, the program's own arenas) after. The order changes no verdict,
// only how soon all_reached stops the reading. Of a big mapping the top
// TOP_FIRST bytes come first: in a thread's stack mapping glibc puts the
// thread's descriptor there, with its TLS vector (a calloc'd block only it
// points to: the last block an agent's thread holds) and the outer frames.
#define EARLY_ROOT_LIMIT (256u << 10)
#define TOP_FIRST (16u << 10)

// Walks /proc/self/maps: roots are r w p mappings except the kernel's
// [vvar]/[vdso]/[vsyscall]; a mapping holding a thread's stack pointer is
// read from that pointer up. Pass 0 reads the early roots, pass 1 the tops
// of the others, pass 2 the rest of them.
static void scan_maps_pass(scanner *s, const char *maps, size_t len, const uintptr_t *sps, int nsp, int pass) {
    const char *p = maps, *end = maps + len;
    while (p < end && !all_reached(s)) {
        const char *nl = p;
        while (nl < end && *nl != '\n') nl++;
        const char *q;
        uintptr_t lo = fl_parse_hex(p, &q);
        uintptr_t hi = (q < nl && *q == '-') ? fl_parse_hex(q + 1, &q) : 0;
        const char *perms = field(p, nl);
        const char *path = field(field(field(field(perms, nl), nl), nl), nl);
        int root = hi > lo && perms + 4 <= nl && perms[0] == 'r' && perms[1] == 'w' && perms[3] == 'p' &&
                   !(path < nl && fl_startswith(path, "[v"));
        if (root) {
            // An anonymous mapping has no path, or a bracketed one ([heap],
            // [stack], [anon:…]).
            s->file_backed = path < nl && *path != '[';
            uintptr_t from = lo;
            for (int i = 0; i < nsp; i++)
                if (sps[i] >= lo && sps[i] < hi) from = sps[i] - 128 > lo ? sps[i] - 128 : lo;  // red zone
            int early = s->file_backed || hi - from <= EARLY_ROOT_LIMIT ||
                        (path < nl && (fl_startswith(path, "[heap]") || fl_startswith(path, "[stack]")));
            if (early != !pass) { s->file_backed = 0; p = nl + 1; continue; }
            uintptr_t top = pass ? hi - TOP_FIRST : from;  // big: more than TOP_FIRST above `from`
            if (pass == 1) scan_root(s, top, hi);
            else if (pass == 2) scan_root(s, from, top);
            else scan_root(s, from, hi);
            s->file_backed = 0;
            // What this mapping reaches, before the next is read: the scan
            // can stop once everything is reached (all_reached).
            drain(s);
        }
        p = nl + 1;
    }
}

static void scan_maps(scanner *s, const char *maps, size_t len, const uintptr_t *sps, int nsp) {
    scan_maps_pass(s, maps, len, sps, nsp, 0);
    scan_maps_pass(s, maps, len, sps, nsp, 1);
    scan_maps_pass(s, maps, len, sps, nsp, 2);
}

// The calling thread's (fl_open_own_proc_file): /proc/self is the main thread's
// entry, which reads empty once the main thread has ended (pthread_exit)
// while others run.
// Returns 0 with errno set when nothing could be read (no fd left: EMFILE).
static size_t read_maps(char *buf, size_t cap) {
    int fd = fl_open_own_proc_file("maps");
    if (fd < 0) return 0;
    size_t n = 0;
    int err = EIO;  // an empty maps file
    while (n < cap) {
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) err = errno;
        if (r <= 0) break;
        n += (size_t)r;
    }
    fl_close_high(fd);
    if (!n) errno = err;
    return n;
}

static range g_exclude[MAX_EXCLUDE];

static void exclude(scanner *s, uintptr_t lo, uintptr_t hi) {
    if (s->nex < MAX_EXCLUDE && hi > lo) s->ex[s->nex++] = (range){lo, hi};
}

// Excludes the stacks of ended threads that no running thread has taken
// since: a stack pointer of another thread inside one means glibc gave the
// block to a new thread, whose frames are roots. When a thread of the
// program did not park (it blocks the stop signal, or timed out) and is not
// one of the ended ones, its stack pointer is not known, so nothing is
// excluded: it could be running on one of them.
static void exclude_ended_stacks(scanner *s, const uintptr_t *sps, const uint32_t *sp_tids, int nsp, uint32_t missed) {
    const leak_ended_stack *e;
    int ne = shim_leak_ended_stacks(&e);
    if (!ne) return;
    const uint32_t *blocked;
    int nb = shim_leak_world_blocked(&blocked);
    if (missed > (uint32_t)nb) return;
    for (int b = 0; b < nb; b++) {
        int ended = 0;
        for (int k = 0; k < ne && !ended; k++) ended = __atomic_load_n(&e[k].tid, __ATOMIC_ACQUIRE) == blocked[b];
        if (!ended && !fl_solo_thread_is_faultlines((pid_t)blocked[b])) return;
    }
    for (int k = 0; k < ne; k++) {
        uintptr_t lo = __atomic_load_n(&e[k].lo, __ATOMIC_RELAXED), hi = e[k].hi;
        uint32_t tid = __atomic_load_n(&e[k].tid, __ATOMIC_ACQUIRE);
        int taken = 0;
        for (int i = 0; i < nsp && !taken; i++) taken = sp_tids[i] != tid && sps[i] >= lo && sps[i] < hi;
        if (taken) continue;
        exclude(s, lo, hi);
        // glibc keeps the thread's TLS vector (a calloc'd block) for the
        // block's next thread: its pointer in the descriptor's header
        // stays a root.
        uintptr_t tp = __atomic_load_n(&e[k].tp, __ATOMIC_RELAXED), dtv = 0;
#if defined(__x86_64__)
        uintptr_t at = tp + sizeof(void *);  // tcbhead_t: tcb, dtv, self…
#else
        uintptr_t at = tp;                   // tcbhead_t: dtv, private
#endif
        if (tp >= lo && tp < hi && shim_safe_read((const void *)at, &dtv, sizeof dtv) == 0) consider(s, dtv);
    }
}

__attribute__((noinline)) static void scan_everything(scanner *s, leak_thread *threads, int nthreads, uint32_t missed, char *maps, size_t maps_cap) {
    // The caller's callee-saved registers are spilled into this frame's
    // jmp_buf, which the scan of our own stack (from here up) covers.
    jmp_buf regs;
    setjmp(regs);
    uintptr_t sps[2 + 8192];
    uint32_t sp_tids[2 + 8192];
    int nsp = 0;
    uint32_t self = shim_tid();
    sp_tids[nsp] = self;
    sps[nsp++] = (uintptr_t)__builtin_frame_address(0);
    if (shim_self.leak_caller_sp) { sp_tids[nsp] = self; sps[nsp++] = shim_self.leak_caller_sp; }  // the check runs on a stack of its own
    for (int i = 0; i < nthreads && nsp < 8194; i++) { sp_tids[nsp] = threads[i].tid; sps[nsp++] = threads[i].sp; }
    exclude_ended_stacks(s, sps, sp_tids, nsp, missed);
    if (all_reached(s)) return;  // no live block: nothing to look for
    size_t len = read_maps(maps, maps_cap);
    // Without the maps there are no roots but the threads' registers and
    // TLS, and nearly every block would be called lost: a process that had
    // used up its fds (EMFILE) got a report of every block of its heap.
    if (!len) { s->maps_errno = errno ? errno : EIO; return; }
    // Opened after the maps were read, so that with a single fd left the
    // maps get it and the roots are read whole instead.
    s->pagemap = fl_open_own_proc_file("pagemap");
    scan_maps(s, maps, len, sps, nsp);
    if (shim_leak_debug_roots) {
        char l[128]; size_t k = fl_strlcpy(l, "reached ", sizeof l);
        k += fl_fmt_u64(l + k, s->reached); k += fl_strlcpy(l + k, " of ", sizeof l - k);
        k += fl_fmt_u64(l + k, s->n); k += fl_strlcpy(l + k, " live blocks from the mappings\n", sizeof l - k);
        fl_log_write(l, k);
        for (uint64_t i = 0; i < s->n && i < 64; i++)
            if (s->b[i].cls != LEAK_REACHABLE) {
                k = fl_strlcpy(l, "unreached ", sizeof l); k += fl_fmt_hex(l + k, s->b[i].user); l[k++] = ' ';
                k += fl_fmt_u64(l + k, s->b[i].size); l[k++] = '\n'; fl_log_write(l, k);
            }
    }
    for (int i = 0; i < nthreads; i++) {
        for (uint32_t r = 0; r < threads[i].nregs; r++) consider(s, threads[i].regs[r]);
        scan_tls(s, threads[i].tp);
    }
    scan_tls(s, (uintptr_t)pthread_self());
    drain(s);
}

// The live blocks, copied out of the lists and sorted by address.
static void load_blocks(scanner *s, uint64_t cap) {
    fill_ctx fc = {s->b, 0, cap};
    shim_live_each_origin(fill, &fc);
    s->n = fc.n;
    sort_blocks(s->b, s->n);
    for (uint64_t i = 0; i < s->n; i++) s->b[i].owner = (uint32_t)i;
    if (s->n) { s->lo = s->b[0].user; s->hi = s->b[s->n - 1].user + s->b[s->n - 1].size + 1; }
}

// What is no root: the scanner and its buffers, the stack depot, the arena
// outside live blocks, and the calling thread's idle alternate stack.
static void exclude_own_memory(scanner *s, const char *maps, uint64_t cap) {
    // The scanner itself, on the scanning thread's stack, whose frames are
    // read: `lo` is the lowest live block's address, and that block was
    // "still reachable" through it whenever it was lost (a Rust program's
    // one glibc-served block below the arena, once no libstdc++ pool lay
    // lower: real-programs.rust-leaks).
    exclude(s, (uintptr_t)s, (uintptr_t)(s + 1));
    exclude(s, (uintptr_t)s->b, (uintptr_t)s->b + cap * sizeof(leak_block));
    exclude(s, (uintptr_t)s->work, (uintptr_t)s->work + cap * sizeof(uint32_t));
    exclude(s, (uintptr_t)s->chunk, (uintptr_t)s->chunk + CHUNK);
    exclude(s, (uintptr_t)maps, (uintptr_t)maps + MAPS_CAP);
    uintptr_t dlo, dhi;
    shim_depot_range(&dlo, &dhi);
    exclude(s, dlo, dhi);
    // The arena outside live blocks holds only freed memory: no roots.
    // After a trim its range may hold other mappings, which are roots;
    // the arena's own writable parts are then read like any mapping
    // (live blocks skipped), which costs time, not accuracy.
    uintptr_t alo, ahi;
    shim_arena_range(&alo, &ahi);
    if (!__atomic_load_n(&shim_arena_trimmed, __ATOMIC_ACQUIRE)) exclude(s, alo, ahi);
    // The calling thread's alternate signal stack, when it is not running
    // on it, holds only the frames of handlers that have returned: the
    // kernel's signal frames there keep every register the thread had
    // when a signal came (the agent's stack-sample signal, taken while
    // the hang watchdog found it busy), and a pointer the program had
    // dropped since kept its block "still reachable".
    stack_t alt;
    if (sigaltstack(0, &alt) == 0 && !(alt.ss_flags & (SS_DISABLE | SS_ONSTACK)) && alt.ss_size)
        exclude(s, (uintptr_t)alt.ss_sp, (uintptr_t)alt.ss_sp + alt.ss_size);
}

// Lost blocks: whatever another lost block points to is indirectly lost,
// the rest definitely. Still stopped: nothing may free a block while it is read.
static void classify_lost(scanner *s) {
    s->mark_as = LEAK_INDIRECT;
    // Lost blocks are flooded oldest first, so the block of a cycle that
    // leads it is the one allocated first, as under valgrind, whose heap
    // hands out rising addresses and which floods in address order. The
    // shim's arena puts each size class in a region of its own, so address
    // order put a 56-byte block allocated after its 232-byte owner first:
    // ld.gold's 10 lost pairs were the other way round from valgrind's.
    // The live lists hold each thread's blocks newest first, so their walk
    // read backwards is allocation order within a thread (threads in turn).
    uint32_t *oldest_first = s->n ? map(s->n * sizeof(uint32_t)) : 0;
    if (oldest_first)
        for (uint64_t i = 0; i < s->n; i++) oldest_first[s->n - 1 - s->b[i].listed] = (uint32_t)i;
    for (uint64_t k = 0; k < s->n; k++) {
        uint64_t i = oldest_first ? oldest_first[k] : k;
        if (s->b[i].cls == LEAK_REACHABLE || s->b[i].scanned) continue;
        s->self = (int64_t)i;
        s->leader = (uint32_t)i;
        scan_block(s, i);
        s->self = -1;
        drain(s);
        // Marked by its own flood: a cycle leads back to it. It leads the
        // cycle, definitely lost (as valgrind counts it), unless a later
        // block's flood reaches it. Otherwise a leaked doubly linked list or
        // any structure with back pointers was all "indirectly lost", with
        // no definitely lost block to say where it hung from.
        if (s->b[i].cls == LEAK_INDIRECT) s->b[i].cls = LEAK_UNVISITED;
    }
    if (oldest_first) munmap(oldest_first, s->n * sizeof(uint32_t));
    for (uint64_t i = 0; i < s->n; i++) if (s->b[i].cls == LEAK_UNVISITED) { s->b[i].cls = LEAK_DIRECT; s->b[i].owner = (uint32_t)i; }
    resolve_owners(s);
}

// The scan's working memory and descriptor (not its block table, which
// goes to the caller on success).
static void release_work(scanner *s, char *maps, uint64_t cap) {
    if (s->work) munmap(s->work, cap * sizeof(uint32_t));
    if (s->chunk) munmap(s->chunk, CHUNK);
    if (maps) munmap(maps, MAPS_CAP);
    fl_close_high(s->pagemap);
}

int shim_leak_scan_run(leak_scan *out) {
    memset(out, 0, sizeof *out);
    if (!shim_cfg.leak_tracking) return -1;
    shim_self.depth++;
    scanner s;
    memset(&s, 0, sizeof s);
    // The calling thread's id, not the pid: process_vm_readv looks the id up
    // as a task, and the main thread's has no memory left once it has ended
    // (pthread_exit) while others run; every read then failed, no root was
    // read and every block was called lost.
    s.pid = (pid_t)syscall(SYS_gettid);
    s.pagemap = -1;
    s.ex = g_exclude;
    s.chunk = map(CHUNK);
    char *maps = map(MAPS_CAP);
    uint64_t t0 = fl_monotonic_ns();
    // Lists first: no thread can be parked halfway through a list change.
    shim_live_lock_all();
    leak_thread *threads = 0;
    uint32_t missed = 0;
    // With no live block there is nothing a thread could free or hide;
    // with the caller the program's only thread (glibc's count, which
    // leaves Faultline's own out) there is no other thread to stop: the
    // world is not stopped, which lists /proc/self/task and reads every
    // thread's status (about 5 % of a short process's samples). The leak
    // helper is then not held; it reads nothing the scan needs, and the
    // live lists are locked against its snapshots.
    int only_thread = fl_program_threads() == 1 && !shim_leak_is_helper(shim_tid());
    int stopped = shim_live_count() > 0 && !only_thread;
    int parked = stopped ? shim_leak_world_stop(&threads, &missed) : 0;
    uint64_t t1 = fl_monotonic_ns();
    uint64_t cap = shim_live_count();
    s.b = map(cap * sizeof(leak_block));
    s.work = map(cap * sizeof(uint32_t));
    if (s.chunk && maps && s.b && s.work) {
        load_blocks(&s, cap);
        exclude_own_memory(&s, maps, cap);
        s.mark_as = LEAK_REACHABLE;
        s.self = -1;
        scan_everything(&s, threads, parked, missed, maps, MAPS_CAP);
    }
    if (!s.maps_errno) classify_lost(&s);
    if (stopped) shim_leak_world_resume();
    shim_live_unlock_all();
    release_work(&s, maps, cap);
    shim_self.depth--;
    if (s.maps_errno) {
        if (s.b) munmap(s.b, (cap ? cap : 1) * sizeof(leak_block));
        out->maps_errno = s.maps_errno;
        return -1;
    }
    out->blocks = s.b;
    out->count = s.n;
    out->mapped = cap;
    out->root_bytes = s.root_bytes;
    out->threads_parked = (uint32_t)parked;
    out->threads_missed = missed;
    out->stop_ns = t1 - t0;
    out->scan_ns = fl_monotonic_ns() - t1;
    return s.b ? 0 : -1;
}

void shim_leak_scan_free(leak_scan *s) {
    if (s->blocks) munmap(s->blocks, (s->mapped ? s->mapped : 1) * sizeof(leak_block));
    s->blocks = 0;
}
