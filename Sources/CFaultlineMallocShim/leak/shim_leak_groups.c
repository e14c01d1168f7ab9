// Leak groups: blocks grouped by class and collapsed allocation stack,
// indirectly lost ones also by the definitely lost group they hang from
// (shim_leak_groups.h).
#include "shim_leak_groups.h"
#include "shim_depot.h"
#include "shim_heapsort.h"
#include "shim_suppress.h"

#include <string.h>
#include <sys/mman.h>

#define MAX_COLLAPSE 256  // frames considered (more than any depot stack holds)
#define PERIOD_MAX 4

static void *map(size_t n) {
    void *p = mmap(0, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? 0 : p;
}

uint64_t shim_leak_collapsed_key(const uintptr_t *pcs, const uint64_t *functions, int n) {
    // Tokens: a run of frames in one function (recursion) is one token, the
    // function; any other frame is its exact return address, so that two
    // call sites stay apart as valgrind keeps them.
    uint64_t out[MAX_COLLAPSE];
    int len = 0;
    for (int i = 0; i < n && len < MAX_COLLAPSE;) {
        int end = i + 1;
        while (end < n && functions[end] == functions[i]) end++;
        out[len++] = end - i > 1 ? functions[i] ^ 0xF00Dull : (uint64_t)pcs[i];
        i = end;
        // The tail repeats the run of up to PERIOD_MAX tokens before it
        // (recursion through a few functions): drop the copy, look again.
        for (int again = 1; again;) {
            again = 0;
            for (int p = 2; p <= PERIOD_MAX && 2 * p <= len; p++) {
                if (memcmp(out + len - 2 * p, out + len - p, (size_t)p * sizeof out[0]) == 0) {
                    len -= p;
                    again = 1;
                    break;
                }
            }
        }
    }
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)len;
    for (int i = 0; i < len; i++) {
        h ^= out[i];
        h *= 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
    }
    return h ? h : 1;  // 0 is "no stack"
}

// Function identity of a return address: its name's hash (the symbol
// table's), else the address itself. Looked up once per address.
#define FUNCTION_CACHE 8192
typedef struct function_entry { uintptr_t pc; uint64_t function; } function_entry;

static uint64_t function_of(function_entry *cache, uintptr_t pc) {
    function_entry *e = cache ? &cache[(pc >> 2) % FUNCTION_CACHE] : 0;
    if (e && e->pc == pc) return e->function;
    const char *fn, *image;
    shim_symbolize(pc, &fn, &image, 0);
    uint64_t h = (uint64_t)pc;
    if (*fn) {
        h = 1469598103934665603ull;
        for (const char *c = fn; *c; c++) h = (h ^ (uint8_t)*c) * 1099511628211ull;
        for (const char *c = image; *c; c++) h = (h ^ (uint8_t)*c) * 1099511628211ull;
    }
    if (e) *e = (function_entry){pc, h};
    return h;
}

// Keys of the stacks met so far (direct-mapped): a stack is collapsed once,
// not once per block.
#define KEY_CACHE 4096
typedef struct key_entry { uint32_t stack; uint16_t depth; uint64_t key; } key_entry;

// A stack's own key: its depot id (definitely lost and reachable groups
// stay one per allocation stack, as valgrind's loss records).
static uint64_t exact_key(uint32_t stack, uint16_t *depth) {
    const uintptr_t *pcs;
    int n = stack ? shim_depot_get(stack, &pcs) : 0;
    *depth = (uint16_t)(n > 0 ? n : 0);
    return stack ? ((uint64_t)stack << 1 | 1) : 0;
}

static uint64_t key_of(key_entry *cache, function_entry *functions, uint32_t stack, uint16_t *depth) {
    if (!stack) { *depth = 0; return 0; }
    key_entry *e = cache ? &cache[(stack * 2654435761u) % KEY_CACHE] : 0;
    if (e && e->stack == stack) { *depth = e->depth; return e->key; }
    const uintptr_t *pcs;
    int n = shim_depot_get(stack, &pcs);
    if (n > MAX_COLLAPSE) n = MAX_COLLAPSE;
    uint64_t ids[MAX_COLLAPSE];
    for (int i = 0; i < n; i++) ids[i] = function_of(functions, pcs[i]);
    uint64_t key = n > 0 ? shim_leak_collapsed_key(pcs, ids, n) : ((uint64_t)stack << 1 | 1);
    *depth = (uint16_t)(n > 0 ? n : 0);
    if (e) *e = (key_entry){stack, *depth, key};
    return key;
}

static uint64_t slot_of(uint64_t cls, uint64_t key, uint64_t holder_key) {
    uint64_t h = (key ^ (holder_key * 0xD6E8FEB86659FD93ull)) + cls;
    h *= 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

// The group of (cls, key, holder_key), made when missing.
static leak_group *find(leak_groups *gs, uint8_t cls, uint64_t key, uint64_t holder_key) {
    for (uint64_t k = slot_of(cls, key, holder_key);; k++) {
        leak_group *g = &gs->g[k & (gs->slots - 1)];
        if (g->count == 0) {
            memset(g, 0, sizeof *g);
            g->cls = cls; g->key = key; g->holder_key = holder_key;
            g->holder = -1; g->suppressed = -1;
            return g;
        }
        if (g->cls == cls && g->key == key && g->holder_key == holder_key) return g;
    }
}

int shim_leak_groups_build(const leak_scan *s, int with_reachable, int with_inherited, leak_groups *out) {
    memset(out, 0, sizeof *out);
    out->slots = 64;
    while (out->slots < 2 * s->count + 2) out->slots <<= 1;
    out->g = map(out->slots * sizeof(leak_group));
    if (!out->g) return -1;
    key_entry *cache = map(KEY_CACHE * sizeof(key_entry));
    function_entry *functions = map(FUNCTION_CACHE * sizeof(function_entry));
    for (uint64_t i = 0; i < s->count; i++) {
        const leak_block *b = &s->blocks[i];
        if (b->inherited && !with_inherited) {
            // The parent's allocation: the parent reports it (every forked
            // child that exited reported it again).
            out->inherited.blocks++;
            out->inherited.bytes += b->size;
            continue;
        }
        out->cls[b->cls].blocks++;
        out->cls[b->cls].bytes += b->size;
        if (b->cls == LEAK_REACHABLE && !with_reachable) continue;
        uint16_t depth, holder_depth;
        // Only indirectly lost blocks are grouped by the collapsed stack:
        // the nodes of a lost tree or list, made by recursion.
        uint64_t key = b->cls == LEAK_INDIRECT ? key_of(cache, functions, b->stack, &depth) : exact_key(b->stack, &depth);
        uint64_t holder_key = 0;
        if (b->cls == LEAK_INDIRECT) {
            const leak_block *o = &s->blocks[b->owner];
            holder_key = (o->inherited && !with_inherited) ? ~0ull : exact_key(o->stack, &holder_depth);
        }
        leak_group *g = find(out, b->cls, key, holder_key);
        if (g->count == 0 || (depth && depth < g->depth)) { g->stack = b->stack; g->depth = depth; }
        g->count++;
        g->bytes += b->size;
    }
    if (cache) munmap(cache, KEY_CACHE * sizeof(key_entry));
    if (functions) munmap(functions, FUNCTION_CACHE * sizeof(function_entry));
    // Each indirectly lost group's holder, while the table can still be
    // looked up in; then compacted (positions only move down, and the
    // holders' move with them through `position`, used here as scratch).
    for (uint64_t k = 0; k < out->slots; k++) {
        leak_group *g = &out->g[k];
        if (!g->count || g->cls != LEAK_INDIRECT || g->holder_key == ~0ull) continue;
        for (uint64_t j = slot_of(LEAK_DIRECT, g->holder_key, 0);; j++) {
            leak_group *h = &out->g[j & (out->slots - 1)];
            if (!h->count) break;
            if (h->cls == LEAK_DIRECT && h->key == g->holder_key && h->holder_key == 0) {
                g->holder = (int64_t)(j & (out->slots - 1));
                h->held.blocks += g->count;
                h->held.bytes += g->bytes;
                break;
            }
        }
    }
    uint64_t n = 0;
    for (uint64_t k = 0; k < out->slots; k++) if (out->g[k].count) out->g[k].position = n++;
    for (uint64_t k = 0; k < out->slots; k++) {
        leak_group *g = &out->g[k];
        if (g->count && g->holder >= 0) g->holder = (int64_t)out->g[g->holder].position;
    }
    n = 0;
    for (uint64_t k = 0; k < out->slots; k++) if (out->g[k].count) out->g[n++] = out->g[k];
    out->n = n;
    return 0;
}

void shim_leak_groups_suppress(leak_groups *gs, uint64_t *pattern_blocks, uint64_t *pattern_bytes,
                               leak_totals *suppressed, leak_totals *shown_lost) {
    *suppressed = (leak_totals){0, 0};
    *shown_lost = (leak_totals){0, 0};
    // Definitely lost groups first: an indirectly lost group's holder is
    // decided before it.
    for (int pass = 0; pass < 2; pass++) {
        uint8_t cls = pass == 0 ? LEAK_DIRECT : LEAK_INDIRECT;
        for (uint64_t i = 0; i < gs->n; i++) {
            leak_group *g = &gs->g[i];
            if (g->cls != cls) continue;
            int m = -1;
            if (g->cls == LEAK_INDIRECT && g->holder >= 0) m = gs->g[g->holder].suppressed;
            if (m < 0 && g->stack) {
                const uintptr_t *pcs;
                int depth = shim_depot_get(g->stack, &pcs);
                m = depth > 0 ? shim_suppress_match(FL_SUPP_LEAK, pcs, depth) : -1;
            }
            if (m >= 0) {
                g->suppressed = (int16_t)m;
                suppressed->blocks += g->count;
                suppressed->bytes += g->bytes;
                if (m < 256) { pattern_blocks[m] += g->count; pattern_bytes[m] += g->bytes; }
            } else {
                shown_lost->blocks += g->count;
                shown_lost->bytes += g->bytes;
            }
        }
    }
}

static int rank(uint8_t cls) { return cls == LEAK_DIRECT ? 0 : cls == LEAK_INDIRECT ? 1 : 2; }
static uint64_t weight(const leak_group *g) { return g->bytes + g->held.bytes; }

#define BEFORE(x, y) (rank((x)->cls) != rank((y)->cls) ? rank((x)->cls) < rank((y)->cls) : weight(x) > weight(y))
SHIM_DEFINE_HEAPSORT(sort_groups, leak_group, BEFORE)

void shim_leak_groups_order(leak_groups *gs) {
    uint64_t n = gs->n;
    // Old index -> new position, in `position` of each group before the move.
    uint64_t *where = map(n * sizeof(uint64_t));
    uint64_t kept = 0;
    for (uint64_t i = 0; i < n; i++) {
        leak_group *g = &gs->g[i];
        if (g->suppressed >= 0) continue;
        g->position = i;  // its old index, carried through the sort
        gs->g[kept++] = *g;
    }
    sort_groups(gs->g, kept);
    if (where) {
        for (uint64_t i = 0; i < n; i++) where[i] = UINT64_MAX;
        for (uint64_t i = 0; i < kept; i++) where[gs->g[i].position] = i;
    }
    for (uint64_t i = 0; i < kept; i++) {
        leak_group *g = &gs->g[i];
        g->position = i;
        if (g->holder >= 0) g->holder = where && where[g->holder] != UINT64_MAX ? (int64_t)where[g->holder] : -1;
    }
    if (where) munmap(where, n * sizeof(uint64_t));
    gs->n = kept;
}

void shim_leak_groups_free(leak_groups *gs) {
    if (gs->g) munmap(gs->g, gs->slots * sizeof(leak_group));
    gs->g = 0;
}
