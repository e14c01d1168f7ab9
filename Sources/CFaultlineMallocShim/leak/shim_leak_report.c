// The `leak` report: lost blocks grouped by (class, allocation stack),
// ordered by bytes, with totals per class; still-reachable blocks counted
// (and grouped only with FAULTLINE_LEAK_SHOW_REACHABLE=1); suppressed
// groups counted per pattern. In a forked child, blocks allocated before
// the fork are the parent's: counted apart (`inherited`) and left out of
// the classes and groups unless FAULTLINE_LEAK_INHERITED=1.
#include "tool_log.h"
#include "shim_leak.h"
#include "shim_leak_groups.h"
#include "shim_suppress_gen.h"
#include "shim_suppress.h"
#include "cancel_off.h"
#include "report_file.h"
#include "shim_config.h"
#include "shim_depot.h"
#include "shim_heapsort.h"
#include "shim_own_stack.h"
#include "shim_report.h"
#include "shim_thread.h"
#include "sigsafe.h"

#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

typedef leak_totals totals;

int shim_leak_report_inherited;

static const char *class_name(int c) {
    switch (c) {
    case LEAK_DIRECT: return "definitely_lost";
    case LEAK_INDIRECT: return "indirectly_lost";
    default: return "still_reachable";
    }
}

static pthread_mutex_t g_check_lock = PTHREAD_MUTEX_INITIALIZER;

void shim_leak_after_fork_child(void) {
    // Not unlocked: the owner is another thread; made anew.
    g_check_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
}

// glibc records the owner of every mutex, a normal one too.
int shim_leak_check_running_here(void) {
    return __atomic_load_n(&g_check_lock.__data.__owner, __ATOMIC_RELAXED) == (int)shim_tid();
}

// One element of "groups": class, count, bytes and the allocation stack; a
// definitely lost group's blocks hanging from it (`indirect`, and
// `total_bytes` with them), an indirectly lost group's holder (`held_by`,
// its index in "groups").
static void write_group(fl_json *w, const leak_group *g) {
    fl_json_begin_object(w, 0);
    fl_json_string(w, "class", class_name(g->cls));
    fl_json_uint(w, "count", g->count);
    fl_json_uint(w, "bytes", g->bytes);
    if (g->cls == LEAK_DIRECT) {
        fl_json_uint(w, "total_bytes", g->bytes + g->held.bytes);
        fl_json_begin_object(w, "indirect");
        fl_json_uint(w, "blocks", g->held.blocks);
        fl_json_uint(w, "bytes", g->held.bytes);
        fl_json_end_object(w);
    }
    if (g->cls == LEAK_INDIRECT && g->holder >= 0) fl_json_uint(w, "held_by", (uint64_t)g->holder);
    if (g->stack) shim_report_stack(w, "allocation_stack", g->stack);
    else fl_json_string(w, "allocation_stack_missing", "not recorded (FAULTLINE_MALLOC_STACKS=0, start-up, or the depot was full)");
    fl_json_end_object(w);
}

// Room the report needs after the groups: suppressions, the shim's
// settings, the images (paths escaped at worst to twice their length).
static size_t room_after_groups(const fl_image_list *images) {
    size_t room = 16384;
    for (int i = 0; i < images->count; i++) room += 2 * fl_strlen(images->images[i].path) + 256;
    for (int i = 0; i < shim_suppress_count(); i++) room += 2 * fl_strlen(shim_suppress_pattern(i)) + 128;
    return room;
}

// How many of the first `want` groups fit into `room` bytes, each measured
// by writing it into `scratch` first (a group is at most a few KiB: 64
// frames). The report's buffer is fixed: with many groups (a large
// FAULTLINE_LEAK_MAX_GROUPS) the whole report overflowed and was dropped.
static uint64_t groups_that_fit(const leak_group *table, uint64_t want, size_t room, char *scratch, size_t scratch_cap) {
    size_t used = 0;
    for (uint64_t i = 0; i < want; i++) {
        fl_json m;
        fl_json_init(&m, scratch, scratch_cap);
        write_group(&m, &table[i]);
        size_t need = m.len + 1;  // and its comma
        if (m.overflowed || used + need > room) return i;
        used += need;
    }
    return want;
}

static void put_totals(fl_json *w, const char *key, totals t) {
    fl_json_begin_object(w, key);
    fl_json_uint(w, "blocks", t.blocks);
    fl_json_uint(w, "bytes", t.bytes);
    fl_json_end_object(w);
}

static long check(const char *trigger);

// Zeroes the stack the check is about to run on. The scan reads the
// calling thread's stack from the scan's own frame up, so it reads the
// frames of the check itself, and their unwritten slots still held what
// the program's earlier, deeper calls left there: in leaks.real-git a stale
// copy of a lost 112-byte block's address in those slots made it reachable,
// or not, depending only on how deep the shim's exit check had just been.
// The check itself needs more stack than this (its stack-pointer list is
// 64 KiB), so this cannot overflow a stack the check would not.
__attribute__((noinline)) static void scrub_stack_below(void) {
    char junk[32768];
    explicit_bzero(junk, sizeof junk);
}

// The check needs about 100 KiB of stack (the scrub above, the scan's
// stack-pointer list, the report writer): on a short stack it runs on one
// of its own (shim_own_stack.h; leaks.small-stack-exit).
static long check_fn(void *trigger) { return check(trigger); }

static long check_on_a_stack(const char *trigger) {
    long r;
    if (shim_own_stack_run(check_fn, (void *)trigger, &r)) return r;
    scrub_stack_below();
    return check(trigger);
}

long shim_leak_check(const char *trigger) {
    // Opens and reads are cancellation points: faultline_leak_check called
    // on a thread with a pthread_cancel pending ended the thread in the
    // scan, holding a live-list lock, and the program's next malloc waited
    // for it for ever (cancel_off.h).
    int cancel_state = fl_cancel_off();
    long r = check_on_a_stack(trigger);
    fl_cancel_restore(cancel_state);
    return r;
}

// A check that could not read the maps says so in one line, with no report.
static void say_skipped(const char *trigger, int maps_errno) {
    char l[256];
    size_t n = fl_strlcpy(l, "faultline: leak check (", sizeof l);
    n += fl_strlcpy(l + n, trigger, sizeof l - n);
    n += fl_strlcpy(l + n, ") skipped, no report: cannot read /proc/self/maps: ", sizeof l - n);
    const char *why = strerrordesc_np(maps_errno);  // a static table: no allocation
    n += fl_strlcpy(l + n, why ? why : "unknown error", sizeof l - n);
    if (n < sizeof l - 1) l[n++] = '\n';
    fl_log_write(l, n);
}

/// What one check counted, for its report and its line.
typedef struct check_counts {
    const totals *tot;                        // by class (LEAK_DIRECT, …)
    totals inherited, suppressed, shown_lost;
    uint64_t kept, want, listed;              // groups: in all, asked for, that fit
} check_counts;

// The report's "leak" object: trigger, totals and the scan's figures.
static void write_leak_object(fl_json *w, const char *trigger, const leak_scan *s, const check_counts *c) {
    const totals *tot = c->tot;
    fl_json_begin_object(w, "leak");
    fl_json_string(w, "trigger", trigger);
    fl_json_begin_object(w, "totals");
    put_totals(w, "definitely_lost", (totals){tot[LEAK_DIRECT].blocks, tot[LEAK_DIRECT].bytes});
    put_totals(w, "indirectly_lost", (totals){tot[LEAK_INDIRECT].blocks, tot[LEAK_INDIRECT].bytes});
    put_totals(w, "still_reachable", (totals){tot[LEAK_REACHABLE].blocks, tot[LEAK_REACHABLE].bytes});
    put_totals(w, "suppressed", c->suppressed);
    put_totals(w, "reported_lost", c->shown_lost);
    put_totals(w, "inherited", c->inherited);
    fl_json_end_object(w);
    fl_json_uint(w, "groups_total", c->kept);
    fl_json_uint(w, "groups_listed", c->listed);
    if (c->listed < c->want) fl_json_bool(w, "groups_cut_by_size", 1);
    fl_json_begin_object(w, "scan");
    fl_json_uint(w, "live_blocks", s->count);
    fl_json_uint(w, "root_bytes", s->root_bytes);
    fl_json_uint(w, "threads_stopped", s->threads_parked);
    fl_json_uint(w, "threads_not_stopped", s->threads_missed);
    fl_json_uint(w, "stop_us", s->stop_ns / 1000);
    fl_json_uint(w, "scan_us", s->scan_ns / 1000);
    fl_json_end_object(w);
    fl_json_end_object(w);
}

// The leak suppressions and what each took (the others' counts: FAULTLINE_SHIM_STATS).
static void write_suppressions(fl_json *w, const uint64_t *pattern_blocks, const uint64_t *pattern_bytes) {
    if (!shim_suppress_wanted(FL_SUPP_LEAK)) return;
    fl_json_begin_array(w, "suppressions");
    for (int i = 0; i < shim_suppress_count(); i++) {
        if (shim_suppress_kind_of(i) != FL_SUPP_LEAK) continue;
        fl_json_begin_object(w, 0);
        fl_json_string(w, "pattern", shim_suppress_pattern(i));
        fl_json_uint(w, "blocks", pattern_blocks[i]);
        fl_json_uint(w, "bytes", pattern_bytes[i]);
        fl_json_end_object(w);
    }
    fl_json_end_array(w);
}

// The one line a leak report prints, valgrind's LEAK SUMMARY in short.
static void summary_line(char *line, size_t cap, const check_counts *c) {
    const totals *tot = c->tot;
    size_t l = fl_strlcpy(line, "faultline: leak: ", cap);
    l += fl_fmt_u64(line + l, tot[LEAK_DIRECT].blocks);
    l += fl_strlcpy(line + l, " blocks definitely lost (", cap - l);
    l += fl_fmt_u64(line + l, tot[LEAK_DIRECT].bytes);
    l += fl_strlcpy(line + l, " bytes), ", cap - l);
    l += fl_fmt_u64(line + l, tot[LEAK_INDIRECT].blocks);
    l += fl_strlcpy(line + l, " indirectly (", cap - l);
    l += fl_fmt_u64(line + l, tot[LEAK_INDIRECT].bytes);
    l += fl_strlcpy(line + l, " bytes), ", cap - l);
    l += fl_strlcpy(line + l, "of them ", cap - l);
    l += fl_fmt_u64(line + l, c->suppressed.blocks);
    l += fl_strlcpy(line + l, " suppressed (", cap - l);
    l += fl_fmt_u64(line + l, c->suppressed.bytes);
    l += fl_strlcpy(line + l, " bytes); ", cap - l);
    l += fl_fmt_u64(line + l, tot[LEAK_REACHABLE].blocks);
    l += fl_strlcpy(line + l, " still reachable (", cap - l);
    l += fl_fmt_u64(line + l, tot[LEAK_REACHABLE].bytes);
    l += fl_strlcpy(line + l, " bytes)", cap - l);
    if (c->inherited.blocks) {
        l += fl_strlcpy(line + l, "; ", cap - l);
        l += fl_fmt_u64(line + l, c->inherited.blocks);
        l += fl_strlcpy(line + l, " blocks from before the fork left to the parent", cap - l);
    }
    if (c->listed < c->want) {
        l += fl_strlcpy(line + l, "; ", cap - l);
        l += fl_fmt_u64(line + l, c->listed);
        l += fl_strlcpy(line + l, " of ", cap - l);
        l += fl_fmt_u64(line + l, c->kept);
        fl_strlcpy(line + l, " groups listed (the report's size limit)", cap - l);
    }
}

// How many of the first `want` groups fit in the report's remaining room.
static uint64_t groups_listed(const fl_json *w, const fl_image_list *images, const leak_group *table, uint64_t want) {
    size_t scratch_cap = 64u << 10;
    char *scratch = mmap(0, scratch_cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (scratch == MAP_FAILED) return 0;
    // Everything before the groups takes well under 4 KiB.
    size_t tail = room_after_groups(images) + 4096;
    size_t room = w->cap > w->len + tail ? w->cap - w->len - tail : 0;
    uint64_t listed = groups_that_fit(table, want, room, scratch, scratch_cap);
    munmap(scratch, scratch_cap);
    return listed;
}

__attribute__((noinline)) static long check(const char *trigger) {
    pthread_mutex_lock(&g_check_lock);  // one scan at a time
    leak_scan s;
    if (shim_leak_scan_run(&s) != 0) {
        pthread_mutex_unlock(&g_check_lock);
        if (s.maps_errno) say_skipped(trigger, s.maps_errno);
        return -1;
    }
    shim_self.depth++;
    leak_groups gs;
    int grouped = shim_leak_groups_build(&s, shim_cfg.leak_show_reachable, shim_leak_report_inherited, &gs);
    shim_leak_scan_free(&s);
    check_counts c = {.tot = gs.cls, .inherited = gs.inherited};
    uint64_t pattern_blocks[256] = {0}, pattern_bytes[256] = {0};
    if (grouped == 0) {
        shim_leak_groups_suppress(&gs, pattern_blocks, pattern_bytes, &c.suppressed, &c.shown_lost);
        shim_leak_groups_order(&gs);
    }
    c.kept = gs.n;
    c.want = c.listed = c.kept < (uint64_t)shim_cfg.leak_max_groups ? c.kept : (uint64_t)shim_cfg.leak_max_groups;
    // At exit a report is written only when something unsuppressed is lost.
    int write = !fl_streq(trigger, "exit") || c.shown_lost.blocks > 0;
    const fl_image_list *images;
    fl_json *w = write ? shim_report_open("leak", &images) : 0;
    if (w) {
        c.listed = groups_listed(w, images, gs.g, c.want);
        write_leak_object(w, trigger, &s, &c);
        fl_json_begin_array(w, "groups");
        for (uint64_t i = 0; i < c.listed; i++) write_group(w, &gs.g[i]);
        fl_json_end_array(w);
        write_suppressions(w, pattern_blocks, pattern_bytes);
        char line[512];
        summary_line(line, sizeof line, &c);
        shim_report_close(w, line);
    }
    if (grouped == 0 && shim_cfg.gen_suppressions) shim_suppress_gen_leaks(gs.g, gs.n);
    shim_leak_groups_free(&gs);
    shim_self.depth--;
    pthread_mutex_unlock(&g_check_lock);
    return (long)c.shown_lost.blocks;
}
