// The malloc shim's allocation stacks with the most live bytes, for memory
// breadcrumbs and warnings. The shim is optional: its export is looked up
// with dlsym at install, and without it the breadcrumbs say so.
//
// The export the shim provides (docs/memory-limits.md):
//   int faultline_shim_top_stacks(uint64_t *live_bytes, uint64_t *live_blocks,
//                                 uintptr_t *pcs, int *depths,
//                                 int max_stacks, int max_depth);
// fills up to max_stacks stacks, most live bytes first: stack i has
// live_bytes[i] bytes in live_blocks[i] blocks, and depths[i] frames at
// pcs[i * max_depth ...] (frame 0 the caller of malloc). Returns the count,
// 0 when allocation records are off. Called from the monitor thread, never
// from a signal handler; must not call malloc.
#ifndef FL_MEMORY_STACKS_H
#define FL_MEMORY_STACKS_H

#include "json_writer.h"

/// Most stacks a breadcrumb lists (FAULTLINE_MEMORY_TOP_STACKS is capped here).
#define FL_TOP_STACKS_MAX 8
/// Frames kept per stack.
#define FL_TOP_STACK_DEPTH 32

/// Looks the shim's export up. Returns 1 when the shim is loaded.
int fl_memory_stacks_init(void);

/// With the shim loaded, fills the image lists once so that their pages are
/// resident before the first breadcrumb needs them.
void fl_memory_stacks_prefault(void);

/// Writes `"top_stacks": [...]` (up to `n` stacks, each with `live_bytes`,
/// `live_blocks` and `frames`) and `"images"` (only those the frames point
/// into), or `"top_stacks_unavailable": "why"` without the shim.
void fl_memory_stacks_write(fl_json *w, int n);

#endif
