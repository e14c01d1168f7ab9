#include "deadlock_graph.h"

void fl_wait_chain_follow(const fl_thread_probe *first, fl_wait_chain *out) {
    out->count = 0;
    out->cycle_start = -1;
    fl_thread_probe p = *first;
    for (;;) {
        fl_chain_link *link = &out->links[out->count++];
        link->probe = p;
        fl_futex_edge(&p, &link->edge);
        const fl_wait_edge *e = &link->edge;
        int has_owner = (e->kind == FL_EDGE_MUTEX || e->kind == FL_EDGE_PI_MUTEX || e->kind == FL_EDGE_RWLOCK || e->kind == FL_EDGE_JOIN) &&
                        e->owner > 0 && e->owner_alive;
        if (!has_owner) return;
        for (int i = 0; i < out->count; i++) {
            if (out->links[i].probe.tid == e->owner) { out->cycle_start = i; return; }
        }
        if (out->count == FL_CHAIN_MAX) return;
        if (fl_probe_thread(e->owner, &p) != 0) return;
    }
}

int fl_wait_cycle_confirmed(const fl_wait_chain *a, const fl_wait_chain *b) {
    if (a->cycle_start < 0 || b->cycle_start < 0) return 0;
    int na = a->count - a->cycle_start, nb = b->count - b->cycle_start;
    if (na != nb) return 0;
    for (int i = a->cycle_start; i < a->count; i++) {
        const fl_chain_link *x = &a->links[i];
        if (x->edge.timed) return 0;
        int found = 0;
        for (int j = b->cycle_start; j < b->count; j++) {
            const fl_chain_link *y = &b->links[j];
            if (y->probe.tid == x->probe.tid && y->edge.addr == x->edge.addr && y->edge.owner == x->edge.owner) found = 1;
        }
        if (!found) return 0;
    }
    return 1;
}
