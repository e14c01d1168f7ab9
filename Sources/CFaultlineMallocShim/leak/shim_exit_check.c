#include "tool_log.h"
#include "shim_exit_check.h"
#include "shim_config.h"
#include "shim_own_stack.h"
#include "shim_quarantine.h"
#include "shim_report.h"
#include "sigsafe.h"

#include <stdint.h>
#include <sys/mman.h>

/// Changed blocks with one allocation stack and one free stack.
typedef struct group {
    uint32_t alloc_stack, free_stack;
    uint64_t count;
    shim_block *first;  ///< the oldest: the one the report shows
} group;

/// Scratch for one check, in one anonymous mapping (pages are touched only
/// as they are used): the changed blocks, their groups in order of first
/// appearance, and an open-addressing table from stack pair to group.
typedef struct scratch {
    void *map;
    size_t map_bytes;
    shim_block **changed;
    group *groups;
    uint32_t *table;  ///< group index + 1; 0 is empty
    size_t table_mask;
} scratch;

static int scratch_map(scratch *s, size_t cap) {
    size_t slots = 16;
    while (slots < 2 * cap) slots <<= 1;  // at most half full
    size_t bytes = cap * sizeof(shim_block *) + cap * sizeof(group) + slots * sizeof(uint32_t);
    void *p = mmap(0, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return -1;
    s->map = p;
    s->map_bytes = bytes;
    s->changed = p;
    s->groups = (group *)(s->changed + cap);
    s->table = (uint32_t *)(s->groups + cap);
    s->table_mask = slots - 1;
    return 0;
}

// Puts `b` into its group (a new one when its stack pair is new).
// Returns the number of groups.
static size_t add_to_group(scratch *s, size_t ngroups, shim_block *b) {
    uint64_t key = (uint64_t)b->alloc_stack << 32 | b->free_stack;
    size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & s->table_mask;
    for (;; i = (i + 1) & s->table_mask) {
        uint32_t g = s->table[i];
        if (g == 0) {
            s->table[i] = (uint32_t)(ngroups + 1);
            s->groups[ngroups] = (group){b->alloc_stack, b->free_stack, 1, b};
            return ngroups + 1;
        }
        group *gr = &s->groups[g - 1];
        if (gr->alloc_stack == b->alloc_stack && gr->free_stack == b->free_stack) {
            gr->count++;
            return ngroups;
        }
    }
}

static void say_left_out(uint64_t groups, uint64_t blocks) {
    char line[256];
    size_t n = fl_strlcpy(line, "faultline: write_after_free: ", sizeof line);
    n += fl_fmt_u64(line + n, groups);
    n += fl_strlcpy(line + n, " more group(s) of changed freed blocks (", sizeof line - n);
    n += fl_fmt_u64(line + n, blocks);
    n += fl_strlcpy(line + n, " blocks) found at exit were not reported: FAULTLINE_MAX_HEAP_REPORTS=", sizeof line - n);
    n += fl_fmt_u64(line + n, (uint64_t)shim_cfg.max_reports);
    n += fl_strlcpy(line + n, " reached\n", sizeof line - n);
    fl_log_write(line, n);
}

static long check_quarantine(void *unused) {
    (void)unused;
    size_t cap = shim_quarantine_capacity();
    scratch s;
    if (scratch_map(&s, cap) != 0) {
        static const char msg[] = "faultline: malloc shim: no memory for the exit check; freed blocks are not checked at exit\n";
        fl_log_write(msg, sizeof msg - 1);
        return 0;
    }
    size_t n = shim_quarantine_take_changed(s.changed, cap);
    size_t ngroups = 0;
    for (size_t i = 0; i < n; i++) ngroups = add_to_group(&s, ngroups, s.changed[i]);
    int reported = 0;
    uint64_t left_groups = 0, left_blocks = 0;
    for (size_t g = 0; g < ngroups; g++) {
        const group *gr = &s.groups[g];
        size_t off, len;
        // Changed when taken; a thread still running may have changed it
        // back since (then there is nothing to show).
        if (!shim_scribble_changed(gr->first, shim_cfg.scribble_limit, &off, &len)) continue;
        if (shim_report_write_after_free(gr->first, off, len, "exit_check", gr->count)) {
            reported++;
        } else {
            left_groups++;
            left_blocks += gr->count;
        }
    }
    if (left_groups) say_left_out(left_groups, left_blocks);
    munmap(s.map, s.map_bytes);
    return reported;
}

int shim_exit_check(void) {
    if (!shim_cfg.scribble_limit) return 0;
    long r;
    if (!shim_own_stack_run(check_quarantine, 0, &r)) r = check_quarantine(0);  // reports need stack
    return (int)r;
}
