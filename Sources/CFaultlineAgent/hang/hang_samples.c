#include "hang_samples.h"
#include "report_file.h"

#include <sys/mman.h>

/// Call-tree nodes: one per distinct (parent, pc), at most every frame of
/// every sample.
#define FL_TREE_MAX_NODES (FL_HANG_RING_MAX * FL_MAX_FRAMES)

typedef struct tree_node {
    uintptr_t pc;
    int first_child;
    int next_sibling;
    int count;
    int self;
} tree_node;

static tree_node *g_nodes;

int fl_sample_ring_init(fl_sample_ring *r) {
    size_t frames = (size_t)FL_HANG_RING_MAX * FL_MAX_FRAMES * sizeof(uintptr_t);
    size_t nodes = (size_t)FL_TREE_MAX_NODES * sizeof(tree_node);
    if (!r->slots[0].pcs) {  // a reinstall keeps the first mapping
        char *mem = mmap(0, frames + nodes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (mem == MAP_FAILED) return -1;
        for (int i = 0; i < FL_HANG_RING_MAX; i++) r->slots[i].pcs = (uintptr_t *)mem + (size_t)i * FL_MAX_FRAMES;
        g_nodes = (tree_node *)(mem + frames);
    }
    fl_sample_ring_clear(r, 30, FL_MAX_FRAMES);
    return 0;
}

void fl_sample_ring_clear(fl_sample_ring *r, int cap, int max_frames) {
    r->cap = cap < 1 ? 1 : cap > FL_HANG_RING_MAX ? FL_HANG_RING_MAX : cap;
    r->max_frames = max_frames < 1 ? 1 : max_frames > FL_MAX_FRAMES ? FL_MAX_FRAMES : max_frames;
    r->start = 0;
    r->count = 0;
    r->total = 0;
}

static fl_hang_sample *at(fl_sample_ring *r, int i) { return &r->slots[(r->start + i) % r->cap]; }
static const fl_hang_sample *cat(const fl_sample_ring *r, int i) { return &r->slots[(r->start + i) % r->cap]; }

fl_hang_sample *fl_sample_ring_push(fl_sample_ring *r, uint64_t time_ns) {
    fl_hang_sample *s;
    if (r->count < r->cap) s = at(r, r->count++);
    else { s = at(r, 0); r->start = (r->start + 1) % r->cap; }
    s->time_ns = time_ns;
    s->n = 0;
    s->pending = 0;
    s->reused = 0;
    s->by_fp = 0;
    r->total++;
    return s;
}

fl_hang_sample *fl_sample_ring_last(fl_sample_ring *r) { return r->count ? at(r, r->count - 1) : 0; }

void fl_sample_ring_resolve(fl_sample_ring *r, const uintptr_t *pcs, int n, int by_fp) {
    for (int i = 0; i < r->count; i++) {
        fl_hang_sample *s = at(r, i);
        if (!s->pending) continue;
        s->pending = 0;
        s->n = n > 0 ? n : 0;
        s->by_fp = s->n > 0 && by_fp;
        for (int k = 0; k < s->n; k++) s->pcs[k] = pcs[k];
    }
}

int fl_sample_ring_by_fp(const fl_sample_ring *r) {
    int k = 0;
    for (int i = 0; i < r->count; i++) k += cat(r, i)->n > 0 && cat(r, i)->by_fp;
    return k;
}

int fl_sample_ring_known(const fl_sample_ring *r) {
    int k = 0;
    for (int i = 0; i < r->count; i++) k += cat(r, i)->n > 0;
    return k;
}

static int same_stack(const fl_hang_sample *a, const fl_hang_sample *b) {
    if (a->n != b->n) return 0;
    for (int i = 1; i < a->n; i++) if (a->pcs[i] != b->pcs[i]) return 0;
    return a->n > 1 || a->pcs[0] == b->pcs[0];
}

// The thread's outermost frame: the last return address that most samples
// of two or more frames end in (a one-frame stack has no return address:
// its frame 0 is the interrupted instruction). 0 when no sample has one.
static uintptr_t common_root(const fl_sample_ring *r) {
    uintptr_t best = 0;
    int best_count = 0;
    for (int i = r->count - 1; i >= 0; i--) {
        const fl_hang_sample *s = cat(r, i);
        if (s->n < 2) continue;
        int c = 0;
        for (int j = 0; j < r->count; j++) {
            const fl_hang_sample *t = cat(r, j);
            c += t->n >= 2 && t->pcs[t->n - 1] == s->pcs[s->n - 1];
        }
        if (c > best_count) { best = s->pcs[s->n - 1]; best_count = c; }
    }
    return best;
}

const fl_hang_sample *fl_sample_ring_culprit(const fl_sample_ring *r, int *count) {
    // O(n^2) over at most FL_HANG_RING_MAX samples: no allocation, and the
    // watchdog does it once per report.
    // Only stacks that reach the thread's outermost frame vote. An unwinder
    // that cannot step out of a function (no unwind entry: Swift's
    // DispatchTime.now(), hand-written assembly) cuts the stack there, and
    // those cut stacks are all alike, while whole ones split by leaf (a loop
    // that calls into the runtime): a cut stack won the vote and the report
    // named no frame of the program.
    uintptr_t root = common_root(r);
    const fl_hang_sample *best = 0;
    int best_count = 0;
    for (int i = r->count - 1; i >= 0; i--) {
        const fl_hang_sample *s = cat(r, i);
        if (s->n <= 0 || (root && (s->n < 2 || s->pcs[s->n - 1] != root))) continue;
        int c = 0;
        for (int j = 0; j < r->count; j++) {
            const fl_hang_sample *t = cat(r, j);
            if (t->n > 0 && same_stack(s, t)) c++;
        }
        if (c > best_count) { best = s; best_count = c; }
    }
    *count = best_count;
    return best;
}

static int child_of(int parent, uintptr_t pc, int *used) {
    int *link = &g_nodes[parent].first_child;
    while (*link >= 0) {
        if (g_nodes[*link].pc == pc) return *link;
        link = &g_nodes[*link].next_sibling;
    }
    if (*used >= FL_TREE_MAX_NODES) return -1;
    int k = (*used)++;
    g_nodes[k] = (tree_node){.pc = pc, .first_child = -1, .next_sibling = -1};
    *link = k;
    return k;
}

void fl_sample_ring_write_tree(const fl_sample_ring *r, fl_json *w, const fl_image_list *images) {
    int used = 1;
    g_nodes[0] = (tree_node){.first_child = -1, .next_sibling = -1};
    for (int i = 0; i < r->count; i++) {
        const fl_hang_sample *s = cat(r, i);
        int node = 0;
        for (int f = s->n - 1; f >= 0 && node >= 0; f--) {
            node = child_of(node, s->pcs[f], &used);
            if (node < 0) break;
            g_nodes[node].count++;
            if (f == 0) g_nodes[node].self++;
        }
    }
    // Pre-order walk with an explicit stack (depth is at most FL_MAX_FRAMES).
    int stack[FL_MAX_FRAMES + 1];
    int depth = 0, written = 0;
    stack[0] = g_nodes[0].first_child;
    fl_json_begin_array(w, "call_tree");
    while (depth >= 0) {
        int k = stack[depth];
        if (k < 0) { depth--; if (depth >= 0) stack[depth] = g_nodes[stack[depth]].next_sibling; continue; }
        const tree_node *n = &g_nodes[k];
        fl_json_begin_object(w, 0);
        fl_json_int(w, "depth", depth);
        fl_json_hex(w, "pc", n->pc);
        int img = images ? fl_images_find(images, n->pc) : -1;
        if (img >= 0) {
            fl_json_int(w, "image", img);
            fl_json_hex(w, "offset", n->pc - images->images[img].load_bias);
        }
        fl_json_int(w, "count", n->count);
        if (n->self) fl_json_int(w, "self", n->self);
        // Not a stack, though a reader finds one here (objects with a pc): a
        // node is an interrupted instruction when every sample through it
        // ended in it, else a return address. Said where that differs from
        // the reader's default by position (frame 0 interrupted, the rest
        // return addresses).
        int return_address = n->count > n->self;
        if (return_address != (written++ > 0)) fl_json_bool(w, "return_address", return_address);
        fl_json_end_object(w);
        if (n->first_child >= 0 && depth < FL_MAX_FRAMES) stack[++depth] = n->first_child;
        else stack[depth] = n->next_sibling;
    }
    fl_json_end_array(w);
}
