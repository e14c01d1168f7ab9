// The crash agent's hook: when the program faults, say whether freed (or
// never initialised) heap memory is behind it. Evidence is a register or
// the fault address holding the 0x55 scribble (0xAA fill), or the fault
// address inside a quarantined block; the block is then found through the
// fault address, a register, or a word near the top of the stack that
// points into a quarantined block (the pointer the bad value was loaded
// through). Async-signal-safe: safe reads, no locks but a bounded trylock.
#include "faultline_malloc_shim.h"
#include "image_list.h"
#include "json_writer.h"
#include "report_file.h"
#include "shim_config.h"
#include "shim_describe.h"
#include "shim_find.h"
#include "shim_guard.h"
#include "shim_redzone.h"
#include "shim_arena.h"
#include "shim_heap.h"
#include "shim_quarantine.h"
#include "shim_report.h"
#include "shim_saferead.h"
#include "sigsafe.h"

#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <ucontext.h>

/// Words above the stack pointer searched for a pointer into a freed block.
#define STACK_WORDS 512
/// At most this many candidate addresses are looked up.
#define MAX_CANDIDATES 96
/// Fault addresses below this are NULL plus an offset (vm.mmap_min_addr's default).
#define NULL_REGION 65536u

static fl_image_list *g_images;

void shim_describe_init(void) {
    if (g_images) return;
    void *p = mmap(0, sizeof(fl_image_list), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) g_images = p;
}

typedef struct reg { const char *name; uint64_t value; } reg;

static int read_registers(const ucontext_t *uc, reg *out, uint64_t *sp) {
    int n = 0;
#if defined(__x86_64__)
    static const struct { const char *name; int reg; } regs[] = {
        {"rax", REG_RAX}, {"rbx", REG_RBX}, {"rcx", REG_RCX}, {"rdx", REG_RDX}, {"rsi", REG_RSI},
        {"rdi", REG_RDI}, {"rbp", REG_RBP}, {"r8", REG_R8}, {"r9", REG_R9}, {"r10", REG_R10},
        {"r11", REG_R11}, {"r12", REG_R12}, {"r13", REG_R13}, {"r14", REG_R14}, {"r15", REG_R15},
    };
    for (unsigned i = 0; i < sizeof regs / sizeof regs[0]; i++)
        out[n++] = (reg){regs[i].name, (uint64_t)uc->uc_mcontext.gregs[regs[i].reg]};
    *sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
    static const char *names[] = {"x0","x1","x2","x3","x4","x5","x6","x7","x8","x9","x10","x11","x12","x13","x14",
        "x15","x16","x17","x18","x19","x20","x21","x22","x23","x24","x25","x26","x27","x28","fp","lr"};
    for (int i = 0; i < 31; i++) out[n++] = (reg){names[i], uc->uc_mcontext.regs[i]};
    *sp = uc->uc_mcontext.sp;
#else
    *sp = 0;
#endif
    return n;
}

// The scribble (or fill) byte repeated, give or take a small offset added to
// it (a field of a struct reached through the bad pointer).
static int holds_pattern(uint64_t v, unsigned char byte) {
    uint64_t rep = 0x0101010101010101ull * byte;
    if ((v >> 16) == (rep >> 16)) return 1;
    uint64_t rep32 = rep & 0xffffffffull;
    return v >= rep32 && v - rep32 < 0x10000;
}

/// A value that may point into the block: where it came from, and for a
/// stack word its offset above the stack pointer (-1 otherwise).
typedef struct candidate { uint64_t value; const char *via; int64_t slot; } candidate;

typedef struct scan_ctx {
    const candidate *cands;
    int count;
    int found;       // index of the candidate, -1
    shim_block *header;
} scan_ctx;

static int visit(shim_block *b, void *vctx) {
    scan_ctx *c = vctx;
    uintptr_t user = (uintptr_t)shim_block_user(b);
    for (int i = 0; i < c->count; i++) {
        if (c->cands[i].value >= user && c->cands[i].value < user + b->size) {
            c->found = i;
            c->header = b;
            return 1;
        }
    }
    return 0;
}

// True when the block has the 8-byte `value` (its pattern part) at an
// aligned offset within its first 4 KiB (`size` bytes of it).
static int block_holds(const shim_found *f, uint64_t value, uint64_t size) {
    static uint64_t words[512];
    uint64_t pattern = value & ~0xffffull;
    size_t n = size < sizeof words ? (size_t)size : sizeof words;
    n &= ~(size_t)7;
    if (n == 0 || shim_safe_read(shim_block_user(f->header), words, n) != 0) return 0;
    for (size_t i = 0; i < n / 8; i++) if ((words[i] & ~0xffffull) == pattern) return 1;
    return 0;
}

// The first candidate (fault address, registers, then stack words nearest
// the stack pointer first) that lies in a block in state `want` (for live
// blocks: one still holding `evidence`). For freed blocks, a candidate in a
// block that has already left the quarantine and still holds the scribble
// stops the search too: it is the nearest explanation, and a later stack
// word pointing at some other freed block would only be stale.
static int find_candidate(const candidate *cands, int nc, uint32_t want, uint64_t evidence, shim_found *f) {
    for (int i = 0; i < nc; i++) {
        // Stack words are many and mostly pointers into live data: a short
        // scan each keeps the handler fast (large blocks are found below).
        size_t window = cands[i].slot >= 0 ? (64u << 10) : SHIM_FIND_WINDOW;
        if (!shim_find_block(cands[i].value, window, f)) {
            if (want == SHIM_QUARANTINED && f->state == SHIM_RELEASED && block_holds(f, 0x5555555555555555ull, 256)) return i;
            continue;
        }
        if (f->state != want) continue;
        // Live blocks are everywhere: one only counts when it still holds
        // the pattern value that was loaded from it.
        if (want == SHIM_LIVE && !block_holds(f, evidence, f->copy.size)) continue;
        return i;
    }
    return -1;
}

static void write_via(fl_json *w, const candidate *c) {
    char text[64];
    size_t n = fl_strlcpy(text, c->via, sizeof text);
    if (c->slot >= 0) {
        n += fl_strlcpy(text + n, " sp+", sizeof text - n);
        char num[24];
        num[fl_fmt_hex(num, (uint64_t)c->slot)] = 0;
        fl_strlcpy(text + n, num, sizeof text - n);
    }
    fl_json_string(w, "found_via", text);
}

// The report of a fault at a guarded block: past its end or before its
// start (a guard page) while it is live, or anywhere in it once freed.
static unsigned long describe_guarded(const shim_found *f, char *buf, unsigned long cap) {
    fl_json w;
    fl_json_init(&w, buf, cap);
    fl_json_begin_object(&w, 0);
    int freed = f->state != SHIM_LIVE;
    int before = !freed && (int64_t)f->offset < 0;
    fl_json_string(&w, "kind", freed ? "use_after_free" : before ? "heap_buffer_underflow" : "heap_buffer_overflow");
    fl_json_string(&w, "evidence", freed    ? "the fault address is in a freed block's pages (FAULTLINE_GUARD: inaccessible once freed)"
                                   : before ? "the fault address is in the guard page in front of the block (FAULTLINE_GUARD)"
                                            : "the fault address is past the end of the block, in its guard page (FAULTLINE_GUARD)");
    if (!freed) fl_json_int(&w, before ? "bytes_before" : "bytes_past_end",
                            before ? -(int64_t)f->offset : (int64_t)(f->offset - f->copy.size));
    if (g_images) fl_images_load(g_images);
    // A negative offset is shown as the distance in front, not as the block's.
    shim_write_block(&w, &f->copy, shim_block_user(f->header), f->state, f->offset, !before, g_images);
    fl_json_string(&w, "found_via", "fault address");
    fl_json_end_object(&w);
    return w.overflowed ? 0 : (unsigned long)w.len;
}

// A fault in the guarded range outside every block's pages: in the moat
// in front of them all (shim_guard_moat), an underflow far in front of a
// block; past the last run handed out, an overflow far past one. The
// block is the live guarded one a register points into (the pointer the
// bad address was computed from: memcpy's destination), on the right side
// of the fault; 0 when none does.
static int live_beside(uint64_t v, uint64_t fault, int above, shim_found *f) {
    if (!shim_guard_find(v, f) || f->state != SHIM_LIVE) return 0;
    uintptr_t user = (uintptr_t)shim_block_user(f->header);
    return above ? user > fault : user + f->copy.size <= fault;
}

// Then a word of the faulting frame's stack (an unoptimised build keeps the
// pointer there and computes the address in a register): the innermost.
static unsigned long describe_outside(uint64_t fault, int above, const reg *regs, int nregs, uint64_t sp, char *buf,
                                      unsigned long cap) {
    shim_found f;
    int i = 0;
    for (; i < nregs; i++)
        if (live_beside(regs[i].value, fault, above, &f)) break;
    candidate via = {0, i < nregs ? regs[i].name : 0, -1};
    for (int k = 0; k < STACK_WORDS && !via.via && sp; k++) {
        uint64_t v;
        if (shim_safe_read((void *)(uintptr_t)(sp + (uint64_t)k * 8), &v, 8) != 0) break;
        if (live_beside(v, fault, above, &f)) via = (candidate){v, "stack", (int64_t)k * 8};
    }
    if (!via.via) return 0;
    uintptr_t user = (uintptr_t)shim_block_user(f.header);
    fl_json w;
    fl_json_init(&w, buf, cap);
    fl_json_begin_object(&w, 0);
    fl_json_string(&w, "kind", above ? "heap_buffer_underflow" : "heap_buffer_overflow");
    fl_json_string(&w, "evidence", above ? "the fault address is in the guarded range's inaccessible front, in front of the block a register or stack word points into (FAULTLINE_GUARD)"
                                         : "the fault address is in the guarded range past every block handed out, past the end of the block a register or stack word points into (FAULTLINE_GUARD)");
    if (above) fl_json_int(&w, "bytes_before", (int64_t)(user - fault));
    else fl_json_int(&w, "bytes_past_end", (int64_t)(fault - (user + f.copy.size)));
    if (g_images) fl_images_load(g_images);
    shim_write_block(&w, &f.copy, (void *)user, f.state, 0, 0, g_images);
    write_via(&w, &via);
    fl_json_end_object(&w);
    return w.overflowed ? 0 : (unsigned long)w.len;
}

// --- delete[] of a block that is not an array ---------------------------------

// `delete[] p` of a type with a destructor reads the element count from
// the 8 bytes in front of p (the Itanium ABI's array cookie), runs that
// many destructors from the last element down, then frees p - 8. For a
// block from scalar new (or malloc) those bytes are the shim's header's
// last word, so the count is huge and the first destructor's `this`,
// p + (count - 1) * size, is wild. A register holding exactly that value
// for a live non-array block p near the crash names the bug; a random
// match of 64 bits is not a worry.
#define COOKIE_MAX_ELEMENT 1024u

static int cookie_block(uint64_t p, uintptr_t lo, uintptr_t hi, shim_block *copy, uint64_t *count) {
    if ((p & 15) || p < NULL_REGION || p >= SHIM_USER_ADDR_END) return 0;
    if (!(p >= lo && p < hi) && !shim_guard_owns((void *)(uintptr_t)p)) return 0;  // no block of ours: no read
    const shim_block *h = shim_block_from_user((void *)(uintptr_t)p);
    if (shim_safe_read(h, copy, sizeof *copy) != 0) return 0;
    if (copy->magic != shim_magic(h, SHIM_LIVE) || copy->check != shim_block_checksum_at(copy, h)) return 0;
    if (copy->alloc_kind == SHIM_KIND_NEW_ARRAY) return 0;
    __builtin_memcpy(count, (const char *)copy + SHIM_HEADER_SIZE - 8, 8);
    return *count > 1;
}

// The element size (1..COOKIE_MAX_ELEMENT) for which `v` is the last
// element's address, p + (count - 1) * size, or the array's end; 0: none.
static unsigned cookie_element(uint64_t p, uint64_t count, uint64_t v) {
    uint64_t d = v - p;
    for (unsigned size = 1; size <= COOKIE_MAX_ELEMENT; size++)
        if (d == (count - 1) * size || d == count * size) return size;
    return 0;
}

static unsigned long describe_array_cookie(const reg *regs, int nregs, uint64_t sp, char *buf, unsigned long cap) {
    // The block: a register or a word of the faulting frames' stack (read
    // at once; near the stack's top word by word).
    static uint64_t words[STACK_WORDS];
    int whole = sp && shim_safe_read((void *)(uintptr_t)sp, words, sizeof words) == 0;
    uintptr_t lo, hi;
    shim_heap_range(&lo, &hi);
    for (int k = -nregs; k < STACK_WORDS; k++) {
        uint64_t p;
        if (k < 0) p = regs[k + nregs].value;
        else if (whole) p = words[k];
        else if (!sp || shim_safe_read((void *)(uintptr_t)(sp + (uint64_t)k * 8), &p, 8) != 0) break;
        shim_block copy;
        uint64_t count;
        if (!cookie_block(p, lo, hi, &copy, &count)) continue;
        for (int i = 0; i < nregs; i++) {
            unsigned size = cookie_element(p, count, regs[i].value);
            if (!size) continue;
            fl_json w;
            fl_json_init(&w, buf, cap);
            fl_json_begin_object(&w, 0);
            fl_json_string(&w, "kind", "alloc_dealloc_mismatch");
            fl_json_string(&w, "evidence", copy.alloc_kind == SHIM_KIND_NEW
                                               ? "delete[] of a block from scalar new: the array count it read in front of the block is the shim's header, and a destructor ran on an element past its end"
                                               : "delete[] of a block from malloc: the array count it read in front of the block is the shim's header, and a destructor ran on an element past its end");
            fl_json_string(&w, "operation", "operator delete[]");
            fl_json_uint(&w, "element_size", size);
            fl_json_hex(&w, "element_count_read", count);
            fl_json_string(&w, "element_in", regs[i].name);
            if (g_images) fl_images_load(g_images);
            shim_write_block(&w, &copy, (void *)(uintptr_t)p, SHIM_LIVE, 0, 0, g_images);
            candidate via = {p, k < 0 ? regs[k + nregs].name : "stack", k < 0 ? -1 : (int64_t)k * 8};
            write_via(&w, &via);
            fl_json_end_object(&w);
            return w.overflowed ? 0 : (unsigned long)w.len;
        }
    }
    return 0;
}

// --- an overflow behind the crash --------------------------------------------

// The red zone of block `f` (read safely) changed: its first changed byte
// past the end and how many to the last.
static int zone_changed(const shim_found *f, size_t *first, size_t *len) {
    static unsigned char zone[512];
    uintptr_t user = (uintptr_t)shim_block_user(f->header), real = (uintptr_t)f->header - f->copy.align_off;
    if (shim_guard_owns((void *)user)) return 0;
    uintptr_t end = shim_arena_owns((void *)real) ? real + shim_arena_block_size((void *)real)
                                                   : user + f->copy.size + shim_redzone_span(f->copy.size);
    uintptr_t from = user + f->copy.size;
    size_t n = end > from && end - from <= sizeof zone ? end - from : 0;
    if (!n || shim_safe_read((void *)from, zone, n) != 0) return 0;
    size_t i = 0, j = n;
    while (i < n && zone[i] == SHIM_REDZONE_BYTE) i++;
    if (i == n) return 0;
    while (j > i && zone[j - 1] == SHIM_REDZONE_BYTE) j--;
    *first = i;
    *len = j - i;
    return 1;
}

// The block in front of `addr` (the nearest whole header), or the one in
// front of that (whose overflow ran over the first's header), with a
// changed red zone.
static int overflow_near(uintptr_t addr, shim_found *out, size_t *first, size_t *len) {
    for (int hop = 0; hop < 2; hop++) {
        if (!shim_find_nearest(addr, 64u << 10, out)) return 0;
        if (out->copy.check == shim_block_checksum_at(&out->copy, out->header) && zone_changed(out, first, len)) return 1;
        addr = (uintptr_t)out->header - 1;
    }
    return 0;
}

// Nothing else explains the crash: a block near the fault address or a
// register whose red zone changed is an overflow that may have led to it
// (a neighbour's pointer field overwritten, then followed).
static unsigned long describe_overflow(uint64_t fault, const reg *regs, int nregs, char *buf, unsigned long cap) {
    uintptr_t lo, hi;
    shim_heap_range(&lo, &hi);
    shim_found f;
    size_t first = 0, len = 0;
    const char *via = 0;
    if (fault >= lo && fault < hi && overflow_near(fault, &f, &first, &len)) via = "fault address";
    for (int i = 0; i < nregs && !via; i++)
        if (regs[i].value >= lo && regs[i].value < hi && overflow_near(regs[i].value, &f, &first, &len)) via = regs[i].name;
    if (!via) return 0;
    fl_json w;
    fl_json_init(&w, buf, cap);
    fl_json_begin_object(&w, 0);
    fl_json_string(&w, "kind", "heap_buffer_overflow");
    fl_json_string(&w, "evidence", "the red zone after a block near the fault was overwritten (an overflow the crash may come from)");
    fl_json_uint(&w, "red_zone_offset", first);
    fl_json_uint(&w, "red_zone_length", len);
    if (g_images) fl_images_load(g_images);
    shim_write_block(&w, &f.copy, shim_block_user(f.header), f.state, 0, 0, g_images);
    fl_json_string(&w, "found_via", via);
    fl_json_end_object(&w);
    return w.overflowed ? 0 : (unsigned long)w.len;
}

/// Which value at the fault carries one of the shim's patterns.
typedef struct evidence {
    const char *name;  // "fault_address", a register's name, or 0: none
    uint64_t value;
    unsigned char pattern;
} evidence;

// The scribble first, then the fill: in the fault address, then the registers.
static evidence find_evidence(uint64_t fault, const reg *regs, int nregs) {
    evidence e = {0, 0, 0};
    unsigned char bytes[2] = {SHIM_SCRIBBLE_BYTE, SHIM_FILL_BYTE};
    for (int k = 0; k < 2; k++) {
        if (fault && holds_pattern(fault, bytes[k])) return (evidence){"fault_address", fault, bytes[k]};
        for (int i = 0; i < nregs; i++)
            if (holds_pattern(regs[i].value, bytes[k])) return (evidence){regs[i].name, regs[i].value, bytes[k]};
    }
    return e;
}

// Candidates for the block: the fault address, and with a pattern seen the
// registers and stack words too, each inside the heap's range [lo, hi).
static int gather_candidates(candidate *cands, uint64_t fault, const reg *regs, int nregs, uint64_t sp, int with_pattern,
                             uintptr_t lo, uintptr_t hi) {
    int nc = 0;
    if (fault >= lo && fault < hi) cands[nc++] = (candidate){fault, "fault address", -1};
    if (!with_pattern) return nc;
    for (int i = 0; i < nregs && nc < MAX_CANDIDATES; i++)
        if (regs[i].value >= lo && regs[i].value < hi) cands[nc++] = (candidate){regs[i].value, regs[i].name, -1};
    static uint64_t words[STACK_WORDS];
    if (sp && shim_safe_read((void *)(uintptr_t)sp, words, sizeof words) == 0) {
        for (int i = 0; i < STACK_WORDS && nc < MAX_CANDIDATES; i++)
            if (words[i] >= lo && words[i] < hi) cands[nc++] = (candidate){words[i], "stack", (int64_t)i * 8};
    } else if (sp) {
        // Near the top of a stack the 4 KiB read may cross its end.
        for (int i = 0; i < STACK_WORDS && nc < MAX_CANDIDATES; i++) {
            uint64_t v;
            if (shim_safe_read((void *)(uintptr_t)(sp + (uint64_t)i * 8), &v, 8) != 0) break;
            if (v >= lo && v < hi) cands[nc++] = (candidate){v, "stack", (int64_t)i * 8};
        }
    }
    return nc;
}

// The candidate whose block explains the pattern, or -1; `*f` its block.
// May turn a fill pattern into a scaled scribble (`*scaled`).
static int pick_block(candidate *cands, int nc, evidence *e, int *scaled, shim_found *f) {
    // The wanted state: freed blocks for the 0x55 pattern, live ones for 0xAA.
    uint32_t want = e->pattern == SHIM_FILL_BYTE ? SHIM_LIVE : SHIM_QUARANTINED;
    int which = find_candidate(cands, nc, want, e->value, f);
    // 0xAA… is also the 0x55 scribble times 2 or 8: a count or index read
    // from a freed block and scaled by an element size (delete[] twice
    // reads its array cookie so). With no live block holding the value, a
    // freed block behind a candidate is the better explanation.
    if (which < 0 && want == SHIM_LIVE && nc > 0) {
        which = find_candidate(cands, nc, SHIM_QUARANTINED, 0x5555555555555555ull, f);
        if (which >= 0) { want = SHIM_QUARANTINED; e->pattern = SHIM_SCRIBBLE_BYTE; *scaled = 1; }
    }
    // Larger blocks than the scan window: look through the quarantine itself.
    if (which < 0 && want == SHIM_QUARANTINED && nc > 0) {
        scan_ctx ctx = {cands, nc, -1, 0};
        if (shim_quarantine_scan(visit, &ctx, 50000000ull) && ctx.found >= 0 &&
            shim_safe_read(ctx.header, &f->copy, sizeof f->copy) == 0) {
            which = ctx.found;
            f->header = ctx.header;
            f->state = SHIM_QUARANTINED;
            f->offset = cands[which].value - (uintptr_t)shim_block_user(ctx.header);
        }
    }
    return which;
}

// The use_after_free (or uninitialized_read) description the pattern makes.
static unsigned long describe_pattern(const evidence *e, int scaled, const candidate *c, const shim_found *f, char *buf, unsigned long cap) {
    fl_json w;
    fl_json_init(&w, buf, cap);
    fl_json_begin_object(&w, 0);
    int freed = e->pattern != SHIM_FILL_BYTE;
    fl_json_string(&w, "kind", freed ? "use_after_free" : "uninitialized_read");
    if (e->name) {
        fl_json_string(&w, "evidence", scaled  ? "a value holds 0xAA..., the 0x55 scribble of a freed block scaled by 2 or 8 (an element size), and no live block holds it"
                                       : freed ? "a value holds the 0x55 pattern freed blocks are scribbled with"
                                               : "a value holds the 0xAA pattern new blocks are filled with");
        fl_json_string(&w, "pattern_in", e->name);
        fl_json_hex(&w, "pattern_value", e->value);
    } else {
        fl_json_string(&w, "evidence", "the fault address is inside a freed block");
    }
    if (c) {
        if (g_images) fl_images_load(g_images);
        shim_write_block(&w, &f->copy, shim_block_user(f->header), f->state, f->offset, 1, g_images);
        write_via(&w, c);
    }
    fl_json_end_object(&w);
    return w.overflowed ? 0 : (unsigned long)w.len;
}

__attribute__((visibility("default")))
unsigned long faultline_shim_describe_fault(const void *siginfo, const void *ucontext, char *buf, unsigned long cap) {
    if (shim_mode != SHIM_MODE_DETECT || !shim_ready || !siginfo || !ucontext || !buf || cap < 64) return 0;
    const siginfo_t *si = siginfo;
    const ucontext_t *uc = ucontext;
    reg regs[40];
    uint64_t sp = 0;
    int nregs = read_registers(uc, regs, &sp);
    // si_addr is a data address only for SIGSEGV and SIGBUS (for SIGABRT it
    // overlays the sender's pid and uid). With a fault code (SEGV_MAPERR,
    // BUS_ADRERR…) the kernel says exactly where the access went; a
    // general-protection fault (a non-canonical address such as the
    // scribble's) is SI_KERNEL, with no address.
    int memory_fault = si->si_signo == SIGSEGV || si->si_signo == SIGBUS;
    int precise = memory_fault && si->si_code > 0 && si->si_code != SI_KERNEL;
    uint64_t fault = memory_fault ? (uint64_t)(uintptr_t)si->si_addr : 0;
    // An access in the first 64 KiB (never mapped: vm.mmap_min_addr) went
    // through NULL plus a field's offset, which no pattern gives: a register
    // holding 0x5555… then is a coincidence (a popcount mask, a hash
    // constant), not a use after free.
    if (precise && fault < NULL_REGION) return 0;
    // FAULTLINE_GUARD: a fault in a guard page or in a freed guarded block.
    shim_found gf;
    if (precise && shim_guard_find(fault, &gf)) return describe_guarded(&gf, buf, cap);
    if (precise && shim_guard_owns((void *)(uintptr_t)fault)) {
        unsigned long n = describe_outside(fault, shim_guard_moat(fault), regs, nregs, sp, buf, cap);
        if (n) return n;
    }
    if (memory_fault) {
        unsigned long n = describe_array_cookie(regs, nregs, sp, buf, cap);
        if (n) return n;
    }

    evidence e = find_evidence(fault, regs, nregs);
    // Without a pattern only the fault address can make the case, so an
    // ordinary crash costs the crash handler one lookup at most.
    static candidate cands[MAX_CANDIDATES];
    uintptr_t lo, hi;
    shim_heap_range(&lo, &hi);
    int nc = gather_candidates(cands, fault, regs, nregs, e.name ? sp : 0, e.name != 0, lo, hi);
    if (!e.name && nc == 0) return describe_overflow(fault, regs, nregs, buf, cap);
    shim_found f;
    int scaled = 0;
    int which = pick_block(cands, nc, &e, &scaled, &f);
    // A fault inside a freed block is evidence on its own; a register that
    // merely points into one is not (stale registers are common).
    int fault_in_block = which >= 0 && fl_streq(cands[which].via, "fault address") && e.pattern != SHIM_FILL_BYTE;
    if (!e.name && !fault_in_block) return describe_overflow(fault, regs, nregs, buf, cap);
    // A pattern in a register alone explains a fault only when no address
    // contradicts it: at a precise fault whose address holds no pattern, or
    // at another signal (an abort, a trap), it needs a block to show for it.
    int register_only = e.name && !fl_streq(e.name, "fault_address") && !fault_in_block;
    if (register_only && (precise || !memory_fault) && which < 0) return describe_overflow(fault, regs, nregs, buf, cap);
    return describe_pattern(&e, scaled, which >= 0 ? &cands[which] : 0, &f, buf, cap);
}
