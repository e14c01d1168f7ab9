// Splitting a suppressions file into lines and each line into a kind and a
// pattern (suppressions_parse.h). The message for a bad line is
// suppressions_describe.c's.
#include "suppressions_parse.h"

#include <string.h>

// The one list of kinds: the shim's, exec's, and the one the messages show.
static const char *const k_kind_names[FL_SUPP_KINDS] = {
    "leak", "double_free", "invalid_free", "alloc_dealloc_mismatch", "new_delete_type_mismatch", "write_after_free",
    "heap_buffer_overflow", "heap_buffer_underflow",
};

const char *fl_supp_kind_name(fl_supp_kind kind) { return k_kind_names[kind]; }

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// The kind `line` (`n` bytes) starts with, followed by ':' and at least
// one byte; the length of `KIND:` in *len. -1 when none.
static int kind_prefix(const char *line, size_t n, size_t *len) {
    for (int k = 0; k < FL_SUPP_KINDS; k++) {
        size_t l = strlen(k_kind_names[k]);
        if (n > l + 1 && memcmp(line, k_kind_names[k], l) == 0 && line[l] == ':') { *len = l + 1; return k; }
    }
    return -1;
}

fl_supp_verdict fl_supp_next(fl_supp_reader *r, fl_supp_line *out) {
    while (r->at < r->len) {
        const char *p = r->text + r->at, *end = r->text + r->len;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (nl) end = nl;
        r->at = (size_t)(end - r->text) + (nl != 0);
        r->line++;
        const char *a = p, *b = end;
        while (a < b && is_blank(*a)) a++;
        while (b > a && is_blank(b[-1])) b--;
        if (a == b || *a == '#') continue;
        size_t n = (size_t)(b - a), k = 0;
        *out = (fl_supp_line){.number = r->line, .text = a, .text_len = n};
        int kind = kind_prefix(a, n, &k);
        // A NUL would end the pattern where strstr sees it: not what the
        // line says.
        if (kind < 0 || memchr(a, 0, n)) return FL_SUPP_NOT_A_SUPPRESSION;
        if (n - k >= FL_SUPP_PATTERN_MAX) return FL_SUPP_PATTERN_TOO_LONG;
        if (r->entries >= FL_SUPP_MAX_ENTRIES) return FL_SUPP_TOO_MANY;
        r->entries++;
        out->kind = (fl_supp_kind)kind;
        out->pattern = a + k;
        out->pattern_len = n - k;
        return FL_SUPP_ENTRY;
    }
    return FL_SUPP_END;
}
