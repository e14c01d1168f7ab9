// FAULTLINE_SUPPRESSIONS: one suppression a line, `KIND:TEXT`, as
// suppressions_parse.c reads it (the same parser `faultline exec` checks a
// file with). An error of KIND (a group of lost blocks for `leak`) is
// suppressed when TEXT is a substring of the function name (as in the
// symbol table, or demangled) or of the image path of any frame of its
// stacks. A malformed line is reported once on stderr (file:line, in the
// words exec uses) and ignored; the program runs on.
#include "tool_log.h"
#include "shim_suppress.h"
#include "sigsafe.h"

#include <errno.h>
#include <string.h>

static char g_patterns[FL_SUPP_MAX_ENTRIES][FL_SUPP_PATTERN_MAX];
static uint8_t g_kinds[FL_SUPP_MAX_ENTRIES];
static int g_count;
static int g_wanted[FL_SUPP_KINDS];           // suppressions per kind
static uint64_t g_hits[FL_SUPP_MAX_ENTRIES];  // heap errors suppressed, per suppression
// One byte more than a file may have, to tell a bigger file; one for the NUL.
static char g_text[FL_SUPP_FILE_MAX + 2];

// The parser's line, then that it is ignored, then what to do.
static void complain(const char *path, fl_supp_verdict verdict, const fl_supp_line *line) {
    char l[FL_SUPP_DESCRIBE_MAX + 256];
    size_t n = fl_strlcpy(l, "faultline: ", sizeof l);
    n += fl_supp_describe(l + n, sizeof l - 1 - n, path, verdict, line);
    n += fl_strlcpy(l + n, "; the line is ignored; ", sizeof l - 1 - n);
    n += fl_strlcpy(l + n, fl_supp_advice(verdict), sizeof l - 1 - n);
    l[n++] = '\n';
    fl_log_write(l, n);
}

void shim_suppress_load(const char *path) {
    if (!path || !*path) return;
    ssize_t len = fl_read_file(path, g_text, sizeof g_text);
    if (len < 0) {
        const char *why = errno == ENOENT ? " (no such file)" : errno == EACCES ? " (permission denied)"
                        : errno == EISDIR ? " (a directory)" : errno == EINVAL ? " (not a regular file)" : "";
        char l[1024];
        size_t n = fl_strlcpy(l, "faultline: cannot read FAULTLINE_SUPPRESSIONS=", sizeof l - 1);
        n += fl_strlcpy_cut(l + n, path, sizeof l - 1 - n, 400);
        n += fl_strlcpy(l + n, why, sizeof l - 1 - n);
        n += fl_strlcpy(l + n, "; nothing is suppressed (check the path)", sizeof l - 1 - n);
        l[n++] = '\n';
        fl_log_write(l, n);
        return;
    }
    if ((size_t)len > FL_SUPP_FILE_MAX) {
        // The rest of the file was never read, and the last line read may
        // be cut in the middle (it is dropped, not complained about).
        char l[600];
        size_t n = fl_strlcpy(l, "faultline: FAULTLINE_SUPPRESSIONS=", sizeof l - 1);
        n += fl_strlcpy_cut(l + n, path, sizeof l - 1 - n, 160);
        n += fl_strlcpy(l + n, " is larger than 256 KiB; only the lines in its first 256 KiB are used (split it, or drop what is not needed)", sizeof l - 1 - n);
        l[n++] = '\n';
        fl_log_write(l, n);
        len = FL_SUPP_FILE_MAX;
        while (len > 0 && g_text[len - 1] != '\n') len--;
    }
    fl_supp_reader reader = {.text = g_text, .len = (size_t)len};
    fl_supp_line line;
    unsigned over = 0;  // good lines past the last suppression kept
    for (fl_supp_verdict v; (v = fl_supp_next(&reader, &line)) != FL_SUPP_END;) {
        // One line for the first good line past the limit, and a count for
        // the rest: a 1000-line file said so 744 times.
        if (v == FL_SUPP_TOO_MANY && over++) continue;
        if (v != FL_SUPP_ENTRY) { complain(path, v, &line); continue; }
        memcpy(g_patterns[g_count], line.pattern, line.pattern_len);
        g_patterns[g_count][line.pattern_len] = 0;
        g_kinds[g_count] = (uint8_t)line.kind;
        g_wanted[line.kind]++;
        g_count++;
    }
    if (over > 1) {
        // After the line complain() wrote for the first of them.
        char l[128];
        size_t n = fl_strlcpy(l, "faultline: ", sizeof l);
        n += fl_fmt_u64(l + n, over - 1);
        n += fl_strlcpy(l + n, " more suppression(s) after that line are ignored too\n", sizeof l - n);
        fl_log_write(l, n);
    }
}

int shim_suppress_count(void) { return g_count; }
fl_supp_kind shim_suppress_kind_of(int i) { return (fl_supp_kind)g_kinds[i]; }
const char *shim_suppress_pattern(int i) { return g_patterns[i]; }
int shim_suppress_wanted(fl_supp_kind kind) { return g_wanted[kind] > 0; }

// TEXT as a pattern has it: `^` anchors it at the start of the name or
// path, a last `$` at its end (LeakSanitizer's anchors); otherwise it is
// a substring. A generated suppression names a whole function so.
static int matches(const char *text, const char *pattern) {
    int start = pattern[0] == '^';
    const char *core = pattern + start;
    size_t len = strlen(core), tlen;
    int end = len > 0 && core[len - 1] == '$';
    if (end) len--;
    if (!start && !end) return strstr(text, core) != 0;
    tlen = strlen(text);
    if (start && end) return tlen == len && memcmp(text, core, len) == 0;
    if (start) return strncmp(text, core, len) == 0;
    if (tlen >= len && memcmp(text + tlen - len, core, len) == 0) return 1;
    return 0;
}

int shim_suppress_match(fl_supp_kind kind, const uintptr_t *pcs, int n) {
    if (!g_wanted[kind]) return -1;
    char readable[1024];
    for (int f = 0; f < n; f++) {
        const char *fn, *image;
        shim_symbolize(pcs[f], &fn, &image, 0);
        const char *demangled = *fn ? shim_demangle(fn, readable, sizeof readable) : 0;
        for (int i = 0; i < g_count; i++)
            if (g_kinds[i] == kind && ((*fn && matches(fn, g_patterns[i])) || (demangled && matches(demangled, g_patterns[i])) ||
                                       (*image && matches(image, g_patterns[i]))))
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
