#include "memory_stacks.h"
#include "fd_transient.h"
#include "fd_guard.h"
#include "image_list.h"
#include "report_file.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef int (*top_stacks_fn)(uint64_t *, uint64_t *, uintptr_t *, int *, int, int);

static top_stacks_fn g_top;
static fl_image_list *g_all;      // every image (mapped at init, filled per breadcrumb)
static fl_image_list *g_used;     // the images the frames point into
static uint64_t g_bytes[FL_TOP_STACKS_MAX], g_blocks[FL_TOP_STACKS_MAX];
static uintptr_t g_pcs[FL_TOP_STACKS_MAX * FL_TOP_STACK_DEPTH];
static int g_depths[FL_TOP_STACKS_MAX];
static int g_maps = -1;           // this process's /proc/self/maps, once prefaulted

int fl_memory_stacks_init(void) {
    g_top = (top_stacks_fn)dlsym(RTLD_DEFAULT, "faultline_shim_top_stacks");
    if (!g_top) return 0;
    if (!g_all) {
        g_all = mmap(0, sizeof *g_all, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        g_used = mmap(0, sizeof *g_used, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (g_all == MAP_FAILED || g_used == MAP_FAILED) { g_all = g_used = 0; g_top = 0; return 0; }
    }
    return 1;
}

void fl_memory_stacks_prefault(void) {
    if (!g_top) return;
    // A forked child inherits its parent's maps, not its own.
    if (g_maps >= 0) fl_fd_close(g_maps);
    // Read with lseek and read later: were its number another file's, that
    // file's offset would move under the program.
    g_maps = fl_fd_guard(fl_open_high("/proc/self/maps", O_RDONLY | O_CLOEXEC));
    if (g_maps < 0) return;
    fl_images_load_fd(g_all, g_maps);
    // As many pages of g_used as the fullest it can get: all the images.
    memcpy(g_used->images, g_all->images, (size_t)g_all->count * sizeof g_all->images[0]);
    g_used->count = 0;
}

/// Index of `img` in g_used, adding it when new.
static int used_index(const fl_image *img) {
    for (int i = 0; i < g_used->count; i++)
        if (g_used->images[i].start == img->start) return i;
    if (g_used->count >= FL_MAX_IMAGES) return -1;
    g_used->images[g_used->count] = *img;
    return g_used->count++;
}

void fl_memory_stacks_write(fl_json *w, int n) {
    if (!g_top) {
        fl_json_string(w, "top_stacks_unavailable", "the malloc shim is not loaded (inject shim to get allocation stacks)");
        return;
    }
    if (n > FL_TOP_STACKS_MAX) n = FL_TOP_STACKS_MAX;
    int count = g_top(g_bytes, g_blocks, g_pcs, g_depths, n, FL_TOP_STACK_DEPTH);
    if (count <= 0) {
        fl_json_string(w, "top_stacks_unavailable", "the malloc shim keeps no allocation records (FAULTLINE_MALLOC_* settings)");
        return;
    }
    if (count > n) count = n;
    if (g_maps >= 0) fl_images_load_fd(g_all, g_maps);
    else fl_images_load(g_all);
    g_used->count = 0;
    fl_json_begin_array(w, "top_stacks");
    for (int s = 0; s < count; s++) {
        fl_json_begin_object(w, 0);
        fl_json_uint(w, "live_bytes", g_bytes[s]);
        fl_json_uint(w, "live_blocks", g_blocks[s]);
        fl_json_begin_array(w, "frames");
        int depth = g_depths[s] > FL_TOP_STACK_DEPTH ? FL_TOP_STACK_DEPTH : g_depths[s];
        for (int f = 0; f < depth; f++) {
            uintptr_t pc = g_pcs[s * FL_TOP_STACK_DEPTH + f];
            fl_json_begin_object(w, 0);
            fl_json_hex(w, "pc", pc);
            int img = fl_images_find(g_all, pc);
            int used = img >= 0 ? used_index(&g_all->images[img]) : -1;
            if (used >= 0) {
                fl_json_int(w, "image", used);
                fl_json_hex(w, "offset", pc - g_all->images[img].load_bias);
            }
            // The shim's allocation stacks start at the caller of malloc:
            // frame 0 is a return address too (FL_FRAME0_RETURN_ADDRESS).
            if (f == 0) fl_json_bool(w, "return_address", 1);
            fl_json_end_object(w);
        }
        fl_json_end_array(w);
        fl_json_end_object(w);
    }
    fl_json_end_array(w);
    fl_report_images(w, g_used);
}
