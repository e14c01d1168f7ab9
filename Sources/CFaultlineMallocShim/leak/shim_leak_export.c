// Exported leak entry points (declared in faultline_malloc_shim.h).
#include "faultline_malloc_shim.h"
#include "shim_config.h"
#include "shim_depot.h"
#include "shim_heap.h"
#include "shim_leak.h"
#include "shim_live.h"

#include <string.h>

__attribute__((visibility("default"))) long faultline_leak_check(void) {
    if (shim_mode != SHIM_MODE_DETECT || !shim_ready) return -1;
    return shim_leak_check("api");
}

__attribute__((visibility("default"))) int faultline_shim_top_stacks(uint64_t *live_bytes, uint64_t *live_blocks, uintptr_t *pcs,
                                                                      int *depths, int max_stacks, int max_depth) {
    if (shim_mode != SHIM_MODE_DETECT || !shim_ready || !shim_cfg.leak_tracking || !shim_cfg.stacks || max_stacks <= 0 || max_depth <= 0)
        return 0;
    shim_live_tally();
    int n = 0;
    for (uint32_t id = shim_depot_next(0); id; id = shim_depot_next(id)) {
        uint64_t bytes, blocks;
        shim_depot_live(id, &bytes, &blocks);
        if (bytes == 0 || (n == max_stacks && bytes <= live_bytes[n - 1])) continue;
        // Insertion into the sorted (most first) arrays.
        int at = n < max_stacks ? n++ : n - 1;
        while (at > 0 && live_bytes[at - 1] < bytes) {
            live_bytes[at] = live_bytes[at - 1];
            live_blocks[at] = live_blocks[at - 1];
            depths[at] = depths[at - 1];
            memcpy(&pcs[(size_t)at * (size_t)max_depth], &pcs[(size_t)(at - 1) * (size_t)max_depth], (size_t)max_depth * sizeof *pcs);
            at--;
        }
        const uintptr_t *frames;
        int d = shim_depot_get(id, &frames);
        if (d > max_depth) d = max_depth;
        live_bytes[at] = bytes;
        live_blocks[at] = blocks;
        depths[at] = d > 0 ? d : 0;
        if (d > 0) memcpy(&pcs[(size_t)at * (size_t)max_depth], frames, (size_t)d * sizeof *pcs);
    }
    return n;
}
