#include "deadlock_graph.h"

/// 1 when the edge names a live thread whose progress the waiter needs
/// (a lock's holder or a joined thread); condition variables and
/// semaphores name nobody.
static int waits_for_owner(const fl_wait_edge *e) {
    int owned = e->kind == FL_EDGE_MUTEX || e->kind == FL_EDGE_PI_MUTEX || e->kind == FL_EDGE_RWLOCK || e->kind == FL_EDGE_JOIN;
    return owned && e->owner > 0 && e->owner_alive;
}

/// Index of the link observing `tid`, or -1.
static int link_of(const fl_wait_chain *chain, pid_t tid) {
    for (int i = 0; i < chain->count; i++) {
        if (chain->links[i].probe.tid == tid) return i;
    }
    return -1;
}

void fl_wait_chain_walk(const fl_thread_probe *first, const fl_wait_source *src, fl_wait_chain *out) {
    out->count = 0;
    out->cycle_start = -1;
    fl_thread_probe p = *first;
    for (;;) {
        fl_chain_link *link = &out->links[out->count++];
        link->probe = p;
        src->edge(src->ctx, &p, &link->edge);
        if (!waits_for_owner(&link->edge)) return;
        int seen = link_of(out, link->edge.owner);
        if (seen >= 0) { out->cycle_start = seen; return; }
        if (out->count == FL_CHAIN_MAX) return;
        if (src->probe(src->ctx, link->edge.owner, &p) != 0) return;
    }
}

/// 1 when `b`'s cycle holds `x`: the same thread waiting on the same lock
/// held by the same owner.
static int cycle_holds(const fl_wait_chain *b, const fl_chain_link *x) {
    for (int j = b->cycle_start; j < b->count; j++) {
        const fl_chain_link *y = &b->links[j];
        if (y->probe.tid == x->probe.tid && y->edge.addr == x->edge.addr && y->edge.owner == x->edge.owner) return 1;
    }
    return 0;
}

int fl_wait_cycle_confirmed(const fl_wait_chain *a, const fl_wait_chain *b) {
    if (a->cycle_start < 0 || b->cycle_start < 0) return 0;
    if (a->count - a->cycle_start != b->count - b->cycle_start) return 0;
    for (int i = a->cycle_start; i < a->count; i++) {
        const fl_chain_link *x = &a->links[i];
        if (x->edge.timed || !cycle_holds(b, x)) return 0;
    }
    return 1;
}
