#include "cpu_stacks.h"

void fl_cpu_stacks_clear(fl_cpu_stacks *t) { t->distinct = t->samples = t->lost = t->other = 0; }

static int same(const fl_cpu_stack *s, const uintptr_t *pcs, int n) {
    if (s->n != n) return 0;
    for (int i = 1; i < n; i++)
        if (s->pcs[i] != pcs[i]) return 0;
    return 1;
}

void fl_cpu_stacks_add(fl_cpu_stacks *t, const uintptr_t *pcs, int n, int by_fp) {
    t->samples++;
    if (n <= 0) { t->lost++; return; }
    if (n > FL_CPU_FRAMES) n = FL_CPU_FRAMES;
    for (int i = 0; i < t->distinct; i++)
        if (same(&t->s[i], pcs, n)) { t->s[i].count++; return; }
    if (t->distinct == FL_CPU_STACKS) { t->other++; return; }
    fl_cpu_stack *s = &t->s[t->distinct++];
    s->n = n;
    s->count = 1;
    s->by_fp = by_fp;
    for (int i = 0; i < n; i++) s->pcs[i] = pcs[i];
}

void fl_cpu_stacks_sort(fl_cpu_stacks *t) {
    for (int i = 1; i < t->distinct; i++)
        for (int j = i; j > 0 && t->s[j].count > t->s[j - 1].count; j--) {
            fl_cpu_stack x = t->s[j]; t->s[j] = t->s[j - 1]; t->s[j - 1] = x;
        }
}
