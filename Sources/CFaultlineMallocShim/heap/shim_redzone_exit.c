// The red zones of the blocks still held at exit: every live block and
// every quarantined one. Live blocks are found through the live list when
// leak tracking keeps one, and otherwise by walking the arena's slots, so
// an overflow of a block the program never frees is found at exit with
// `--detectors crash,use_after_free` too (memory.heap-overflow-exit-untracked).
#include "shim_arena_class.h"
#include "shim_heap.h"
#include "shim_live.h"
#include "shim_own_stack.h"
#include "shim_quarantine.h"
#include "shim_redzone.h"
#include "shim_report.h"

#define EXIT_MAX 16

typedef struct found {
    const shim_block *b[EXIT_MAX];
    uint32_t state[EXIT_MAX];
    int n;
    const shim_block *damaged[EXIT_MAX];  // live blocks whose header is not whole
    int ndamaged;
} found;

static void add(found *f, const shim_block *b, uint32_t state) {
    if (f->n < EXIT_MAX && shim_block_sealed(b) && !shim_redzone_intact(b)) { f->state[f->n] = state; f->b[f->n++] = b; }
}

static void visit_live(const shim_block *b, void *ctx) { add(ctx, b, SHIM_LIVE); }

static void visit_damaged(const shim_block *b, void *ctx) {
    found *f = ctx;
    if (f->ndamaged < EXIT_MAX) f->damaged[f->ndamaged++] = b;
}

static int visit_held(shim_block *b, void *ctx) {
    found *f = ctx;
    add(f, b, SHIM_QUARANTINED);
    return f->n >= EXIT_MAX;
}

// Without the live list: every slot the arena has handed out, read where
// its header would be (no live link in front without leak tracking). The
// spans below a class's frontier stay readable (given-back ones read as
// zeros), so nothing here can fault; a header that only looks live fails
// its checksum. Blocks from glibc (over the arena's sizes) have no such walk.
static void walk_arena(found *f) {
    for (unsigned c = 0; c < SHIM_ARENA_CLASSES && f->n < EXIT_MAX; c++) {
        const arena_class *k = &shim_arena_classes[c];
        uintptr_t frontier = __atomic_load_n(&k->frontier, __ATOMIC_ACQUIRE);
        // The current span's slots from `next` on were never handed out:
        // reading their headers only faulted in zero pages (a short
        // process's walk was mostly that: 7 % of `/bin/true`'s samples).
        uintptr_t fresh = __atomic_load_n(&k->next, __ATOMIC_ACQUIRE), fresh_end = __atomic_load_n(&k->span_end, __ATOMIC_ACQUIRE);
        for (uintptr_t span = k->start; span < frontier && f->n < EXIT_MAX; span += SHIM_SPAN_SIZE)
            for (uint32_t i = 0; i < k->per_span && f->n < EXIT_MAX; i++) {
                uintptr_t slot = span + (uintptr_t)i * k->size;
                if (slot >= fresh && slot < fresh_end) break;  // the rest of this span too
                const void *user = (const void *)(slot + SHIM_HEADER_SIZE);
                const shim_block *b = shim_block_from_user(user);
                uint32_t st;
                shim_header_reading r = shim_header_read(b, b, k->size, &st);
                if (r == SHIM_HEADER_WHOLE && st == SHIM_LIVE) add(f, b, SHIM_LIVE);
                // An underflow wrote over the header: our live tag over a
                // failing checksum, or a whole checksum of a block this class
                // holds under a tag that is none of ours (as free's check says).
                else if ((r == SHIM_HEADER_UNSEALED && st == SHIM_LIVE) || r == SHIM_HEADER_UNTAGGED) visit_damaged(b, f);
            }
    }
}

static long exit_check(void *unused) {
    (void)unused;
    found f = {.n = 0};
    if (shim_live_on) {
        shim_live_lock_all();
        shim_live_each(visit_live, &f);
        shim_live_each_damaged(visit_damaged, &f);
        shim_live_unlock_all();
    } else if (shim_arena_base) {
        walk_arena(&f);
    }
    shim_quarantine_scan(visit_held, &f, 50000000ull);
    for (int i = 0; i < f.ndamaged; i++)
        // Only the tag went when the checksum still holds: its size and
        // stacks are the block's own and go in the report.
        shim_report_heap_underflow(shim_block_sealed(f.damaged[i]) ? f.damaged[i] : 0, shim_block_user(f.damaged[i]),
                                   SHIM_LIVE, "header", 0, 0, 0, 0, "exit_check");
    for (int i = 0; i < f.n; i++) shim_redzone_report(f.b[i], f.state[i], "exit_check");
    return 0;
}

void shim_redzone_exit_check(void) {
    long unused;
    // A report needs more stack than a small thread stack that calls exit has.
    if (!shim_own_stack_run(exit_check, 0, &unused)) exit_check(0);
}
