// FAULTLINE_LEAK_SUPPRESSIONS: one pattern a line, `leak:TEXT`; `#` starts
// a comment line; blank lines are ignored. A group of lost blocks is
// suppressed when TEXT is a substring of the function name (as in the
// symbol table, or demangled) or of the image path of any frame of its
// allocation stack. A malformed line is reported
// once on stderr (file:line) and ignored; the program runs on.
#include "shim_leak.h"
#include "sigsafe.h"

#include <errno.h>
#include <string.h>

#define MAX_PATTERNS 256
#define PATTERN_MAX 256
#define FILE_MAX (256u << 10)

static char g_patterns[MAX_PATTERNS][PATTERN_MAX];
static int g_count;
static char g_text[FILE_MAX];

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

void shim_leak_suppress_load(const char *path) {
    if (!path || !*path) return;
    ssize_t len = fl_read_file(path, g_text, sizeof g_text - 1);
    if (len < 0) {
        const char *why = errno == ENOENT ? " (no such file)" : errno == EACCES ? " (permission denied)"
                        : errno == EISDIR ? " (a directory)" : errno == EINVAL ? " (not a regular file)" : "";
        char l[1024];
        size_t n = fl_strlcpy(l, "faultline: cannot read FAULTLINE_LEAK_SUPPRESSIONS=", sizeof l - 1);
        n += fl_strlcpy_cut(l + n, path, sizeof l - 1 - n, 400);
        n += fl_strlcpy(l + n, why, sizeof l - 1 - n);
        n += fl_strlcpy(l + n, "; leaks are reported unsuppressed (check the path)", sizeof l - 1 - n);
        l[n++] = '\n';
        fl_write_all(2, l, n);
        return;
    }
    g_text[len] = 0;
    if ((size_t)len >= sizeof g_text - 2) {
        // Full: the rest of the file was never read, and the last line read
        // may be cut in the middle (it is dropped, not complained about).
        char l[600];
        size_t n = fl_strlcpy(l, "faultline: FAULTLINE_LEAK_SUPPRESSIONS=", sizeof l - 1);
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
            size_t n = (size_t)(b - a);
            if (n <= 5 || strncmp(a, "leak:", 5) != 0) {
                complain(path, lineno, "not a suppression (expected leak:FUNCTION_OR_LIBRARY)", a, n);
            } else if (n - 5 >= PATTERN_MAX) {
                complain(path, lineno, "pattern longer than 255 bytes", a, n);
            } else if (g_count >= MAX_PATTERNS) {
                complain(path, lineno, "more than 256 suppressions", 0, 0);
            } else {
                memcpy(g_patterns[g_count], a + 5, n - 5);
                g_patterns[g_count][n - 5] = 0;
                g_count++;
            }
        }
        p = nl ? nl + 1 : end;
    }
}

int shim_leak_suppress_count(void) { return g_count; }
const char *shim_leak_suppress_pattern(int i) { return g_patterns[i]; }

int shim_leak_suppress_match(const uintptr_t *pcs, int n) {
    if (!g_count) return -1;
    char readable[1024];
    for (int f = 0; f < n; f++) {
        const char *fn, *image;
        shim_leak_symbolize(pcs[f], &fn, &image);
        const char *demangled = *fn ? shim_leak_demangle(fn, readable, sizeof readable) : 0;
        for (int i = 0; i < g_count; i++)
            if ((*fn && strstr(fn, g_patterns[i])) || (demangled && strstr(demangled, g_patterns[i])) ||
                (*image && strstr(image, g_patterns[i])))
                return i;
    }
    return -1;
}
