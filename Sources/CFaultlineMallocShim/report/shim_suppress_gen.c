// Suppressions generated for the reports (shim_suppress_gen.h).
#include "tool_log.h"
#include "shim_suppress_gen.h"
#include "shim_depot.h"
#include "shim_suppress.h"
#include "sigsafe.h"

#include <string.h>
#include <unistd.h>

// Functions that only hand an allocation on: a suppression names the
// first frame that is none of these (as `faultline exec`'s leak summary
// names a group), so it says where the program allocated, not libc.
static const char *const k_allocators[] = {
    "malloc", "calloc", "realloc", "reallocarray", "free", "posix_memalign", "aligned_alloc", "memalign",
    "valloc", "pvalloc", "strdup", "__strdup", "strndup", "__strndup", "wcsdup", "asprintf", "__asprintf",
    "vasprintf", "__vasprintf", "getline", "getdelim", "__getdelim", "realpath", "swift_slowAlloc",
    "swift_allocObject", "xmalloc", "xcalloc", "xrealloc", "xstrdup", "Perl_safesysmalloc", "Perl_safesyscalloc",
    "Perl_safesysrealloc",
};

static int is_allocator(const char *fn) {
    // operator new/new[]/delete/delete[], every variant.
    if (!strncmp(fn, "_Znw", 4) || !strncmp(fn, "_Zna", 4) || !strncmp(fn, "_Zdl", 4) || !strncmp(fn, "_Zda", 4)) return 1;
    for (size_t i = 0; i < sizeof k_allocators / sizeof k_allocators[0]; i++)
        if (!strcmp(fn, k_allocators[i])) return 1;
    return 0;
}

// `^TEXT$`, or `^` and as much of TEXT as fits when it is too long.
static size_t anchored(char *out, const char *text) {
    size_t len = strlen(text), room = FL_SUPP_PATTERN_MAX - 3;
    out[0] = '^';
    if (len > room) len = room;
    memcpy(out + 1, text, len);
    size_t n = 1 + len;
    if (len == strlen(text)) out[n++] = '$';
    out[n] = 0;
    return n;
}

size_t shim_suppress_gen_pattern(const uintptr_t *pcs, int n, char *out) {
    const char *first_image = 0;
    for (int f = 0; f < n; f++) {
        const char *fn, *image;
        shim_symbolize(pcs[f], &fn, &image, 0);
        if (!first_image && *image) first_image = image;
        if (!*fn) {
            // A frame of a stripped image: its image, not a named frame
            // further out (which would be `main` for every leak).
            if (*image) return anchored(out, image);
            continue;
        }
        if (!is_allocator(fn)) return anchored(out, fn);
    }
    return first_image ? anchored(out, first_image) : 0;
}

// The comment `# faultline --gen-suppressions (pid N): WHAT`, then the line
// `KIND:PATTERN`: always the two, so that `grep -A1` on the comment takes
// every suppression (one silencing several reports is printed for each).
static void emit(const char *what, fl_supp_kind kind, const char *pattern) {
    char l[1024];
    size_t n = fl_strlcpy(l, "# faultline --gen-suppressions (pid ", sizeof l);
    n += fl_fmt_u64(l + n, (uint64_t)getpid());
    n += fl_strlcpy(l + n, "): ", sizeof l - n);
    n += fl_strlcpy_cut(l + n, what, sizeof l - n - 1, 600);
    l[n++] = '\n';
    n += fl_strlcpy(l + n, fl_supp_kind_name(kind), sizeof l - n);
    if (n < sizeof l - 1) l[n++] = ':';
    n += fl_strlcpy(l + n, pattern, sizeof l - n - 1);
    l[n++] = '\n';
    fl_log_write(l, n);
}

static const char *class_words(uint8_t cls) {
    return cls == LEAK_DIRECT ? " definitely lost" : cls == LEAK_INDIRECT ? " indirectly lost" : " still reachable";
}

void shim_suppress_gen_leaks(const leak_group *groups, uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        const leak_group *g = &groups[i];
        if (g->cls == LEAK_REACHABLE) continue;
        // Held by another group: that group's line silences it too.
        const leak_group *by = g->cls == LEAK_INDIRECT && g->holder >= 0 && (uint64_t)g->holder < n ? &groups[g->holder] : g;
        char what[512];
        size_t w = fl_strlcpy(what, "leak of ", sizeof what);
        w += fl_fmt_u64(what + w, g->bytes);
        w += fl_strlcpy(what + w, " bytes in ", sizeof what - w);
        w += fl_fmt_u64(what + w, g->count);
        w += fl_strlcpy(what + w, " block(s)", sizeof what - w);
        w += fl_strlcpy(what + w, class_words(g->cls), sizeof what - w);
        if (g->cls == LEAK_DIRECT && g->held.blocks) {
            w += fl_strlcpy(what + w, ", with ", sizeof what - w);
            w += fl_fmt_u64(what + w, g->held.bytes);
            w += fl_strlcpy(what + w, " bytes indirectly lost through it", sizeof what - w);
        }
        if (by != g) {
            w += fl_strlcpy(what + w, ", held by group ", sizeof what - w);
            w += fl_fmt_u64(what + w, (uint64_t)g->holder);
            fl_strlcpy(what + w, " (its line silences it)", sizeof what - w);
        }
        const uintptr_t *pcs;
        int depth = by->stack ? shim_depot_get(by->stack, &pcs) : 0;
        char pattern[FL_SUPP_PATTERN_MAX];
        if (depth <= 0 || !shim_suppress_gen_pattern(pcs, depth, pattern)) {
            fl_strlcpy(what + fl_strlen(what), ": no allocation stack, nothing to name", sizeof what - fl_strlen(what));
            char l[600];
            size_t k = fl_strlcpy(l, "# faultline: no suppression for a ", sizeof l);
            k += fl_strlcpy(l + k, what, sizeof l - k - 1);
            l[k++] = '\n';
            fl_log_write(l, k);
            continue;
        }
        emit(what, FL_SUPP_LEAK, pattern);
    }
}

void shim_suppress_gen_error(fl_supp_kind kind, const uintptr_t *pcs, int n) {
    char pattern[FL_SUPP_PATTERN_MAX];
    if (n <= 0 || !shim_suppress_gen_pattern(pcs, n, pattern)) return;
    emit(fl_supp_kind_name(kind), kind, pattern);
}
