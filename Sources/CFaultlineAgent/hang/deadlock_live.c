// The wait source over this process's live threads: what the watchdog
// walks when it finds the watched thread blocked in futex.
#include "deadlock_graph.h"

static void live_edge(void *ctx, const fl_thread_probe *p, fl_wait_edge *e) { fl_futex_edge(p, e); }

static int live_probe(void *ctx, pid_t tid, fl_thread_probe *p) { return fl_probe_thread(tid, p); }

void fl_wait_chain_follow(const fl_thread_probe *first, fl_wait_chain *out) {
    static const fl_wait_source live = {live_edge, live_probe, 0};
    fl_wait_chain_walk(first, &live, out);
}
