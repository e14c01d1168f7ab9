// FAULTLINE_SUPPRESSIONS: one suppression a line, `KIND:TEXT` (KIND one of
// k_kind_names); `#` starts a comment line; blank lines are ignored. An
// error of KIND (a group of lost blocks for `leak`) is suppressed when TEXT
// is a substring of the function name (as in the symbol table, or
// demangled) or of the image path of any frame of its stacks. A malformed
// line is reported once on stderr (file:line) and ignored; the program
// runs on.
#include "shim_suppress.h"
#include "sigsafe.h"

#include <errno.h>
#include <string.h>

#define MAX_PATTERNS 256
#define PATTERN_MAX 256
#define FILE_MAX (256u << 10)

static const char *const k_kind_names[SHIM_SUPPRESS_KINDS] = {
    "leak", "double_free", "invalid_free", "alloc_dealloc_mismatch", "new_delete_type_mismatch", "write_after_free",
};

static char g_patterns[MAX_PATTERNS][PATTERN_MAX];
static uint8_t g_kinds[MAX_PATTERNS];
static int g_count;
static int g_wanted[SHIM_SUPPRESS_KINDS];  // suppressions per kind
static uint64_t g_hits[MAX_PATTERNS];      // heap errors suppressed, per suppression
static char g_text[FILE_MAX];

const char *shim_suppress_kind_name(shim_suppress_kind kind) { return k_kind_names[kind]; }

// The kind `line` (`n` bytes) starts with, followed by ':'; its length in
// *len. -1 when none.
static int kind_prefix(const char *line, size_t n, size_t *len) {
    for (int k = 0; k < SHIM_SUPPRESS_KINDS; k++) {
        size_t l = fl_strlen(k_kind_names[k]);
        if (n > l + 1 && strncmp(line, k_kind_names[k], l) == 0 && line[l] == ':') { *len = l + 1; return k; }
    }
    return -1;
}

static void complain(const char *path, int lineno, const char *what, const char *text, size_t len) {
    char l[1024];
    size_t n = fl_strlcpy(l, "faultline: ", sizeof l);
    n += fl_strlcpy(l + n, path, sizeof l - n);
    n += fl_strlcpy(l + n, ":", sizeof l - n);
    n += fl_fmt_u64(l + n, (uint64_t)lineno);
    n += fl_strlcpy(l + n, ": ", sizeof l - n);
    n += fl_strlcpy(l + n, what, sizeof l - n);
    if (text) {
        n += fl_strlcpy(l + n, ": \"", sizeof l - n);
        size_t k = len < 200 ? len : 200;
        if (n + k < sizeof l - 64) { memcpy(l + n, text, k); n += k; }
        n += fl_strlcpy(l + n, "\"", sizeof l - n);
    }
    n += fl_strlcpy(l + n, "; the line is ignored\n", sizeof l - n);
    fl_write_all(2, l, n);
}

void shim_suppress_load(const char *path) {
    if (!path || !*path) return;
    ssize_t len = fl_read_file(path, g_text, sizeof g_text - 1);
    if (len < 0) {
        const char *why = errno == ENOENT ? " (no such file)" : errno == EACCES ? " (permission denied)"
                        : errno == EISDIR ? " (a directory)" : errno == EINVAL ? " (not a regular file)" : "";
        char l[1024];
        size_t n = fl_strlcpy(l, "faultline: cannot read FAULTLINE_SUPPRESSIONS=", sizeof l - 1);
        n += fl_strlcpy_cut(l + n, path, sizeof l - 1 - n, 400);
        n += fl_strlcpy(l + n, why, sizeof l - 1 - n);
        n += fl_strlcpy(l + n, "; nothing is suppressed (check the path)", sizeof l - 1 - n);
        l[n++] = '\n';
        fl_write_all(2, l, n);
        return;
    }
    g_text[len] = 0;
    if ((size_t)len >= sizeof g_text - 2) {
        // Full: the rest of the file was never read, and the last line read
        // may be cut in the middle (it is dropped, not complained about).
        char l[600];
        size_t n = fl_strlcpy(l, "faultline: FAULTLINE_SUPPRESSIONS=", sizeof l - 1);
        n += fl_strlcpy_cut(l + n, path, sizeof l - 1 - n, 160);
        n += fl_strlcpy(l + n, " is larger than 256 KiB; only the lines in its first 256 KiB are used (split it, or drop what is not needed)", sizeof l - 1 - n);
        l[n++] = '\n';
        fl_write_all(2, l, n);
        char *last = strrchr(g_text, '\n');
        if (last) last[1] = 0;
    }
    int lineno = 0;
    for (char *p = g_text; *p;) {
        char *nl = strchr(p, '\n');
        char *end = nl ? nl : p + strlen(p);
        lineno++;
        char *a = p, *b = end;
        while (a < b && (*a == ' ' || *a == '\t')) a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\r')) b--;
        if (a < b && *a != '#') {
            size_t n = (size_t)(b - a), k;
            int kind = kind_prefix(a, n, &k);
            if (kind < 0) {
                complain(path, lineno, "not a suppression (expected KIND:FUNCTION_OR_LIBRARY, KIND one of leak, double_free, "
                         "invalid_free, alloc_dealloc_mismatch, new_delete_type_mismatch, write_after_free)", a, n);
            } else if (n - k >= PATTERN_MAX) {
                complain(path, lineno, "pattern longer than 255 bytes", a, n);
            } else if (g_count >= MAX_PATTERNS) {
                complain(path, lineno, "more than 256 suppressions", 0, 0);
            } else {
                memcpy(g_patterns[g_count], a + k, n - k);
                g_patterns[g_count][n - k] = 0;
                g_kinds[g_count] = (uint8_t)kind;
                g_wanted[kind]++;
                g_count++;
            }
        }
        p = nl ? nl + 1 : end;
    }
}

int shim_suppress_count(void) { return g_count; }
shim_suppress_kind shim_suppress_kind_of(int i) { return (shim_suppress_kind)g_kinds[i]; }
const char *shim_suppress_pattern(int i) { return g_patterns[i]; }
int shim_suppress_wanted(shim_suppress_kind kind) { return g_wanted[kind] > 0; }

int shim_suppress_match(shim_suppress_kind kind, const uintptr_t *pcs, int n) {
    if (!g_wanted[kind]) return -1;
    char readable[1024];
    for (int f = 0; f < n; f++) {
        const char *fn, *image;
        shim_symbolize(pcs[f], &fn, &image, 0);
        const char *demangled = *fn ? shim_demangle(fn, readable, sizeof readable) : 0;
        for (int i = 0; i < g_count; i++)
            if (g_kinds[i] == kind && ((*fn && strstr(fn, g_patterns[i])) || (demangled && strstr(demangled, g_patterns[i])) ||
                                       (*image && strstr(image, g_patterns[i]))))
                return i;
    }
    return -1;
}

void shim_suppress_count_hit(int i) { __atomic_fetch_add(&g_hits[i], 1, __ATOMIC_RELAXED); }
uint64_t shim_suppress_hits(int i) { return __atomic_load_n(&g_hits[i], __ATOMIC_RELAXED); }

void shim_suppress_after_fork_child(void) {
    memset(g_hits, 0, sizeof g_hits);
    shim_symbolize_after_fork_child();
}
