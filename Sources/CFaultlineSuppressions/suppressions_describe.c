// The one-line message for a bad line of a suppressions file
// (suppressions_parse.h), the same from the shim and from exec. Values are
// escaped as OneLine.escaped escapes them on the Swift side (`\n`, `\t`,
// `\u{1B}`, C1 controls too), so that a line with an escape sequence cannot
// act on the terminal; a byte that is not UTF-8 is `\xFF`.
#include "suppressions_parse.h"

#include <string.h>

/// Most bytes a quoted file name and a quoted line take in a message.
#define NAME_MAX_QUOTED 400
#define VALUE_MAX_QUOTED 200

// Appends as much of `s` (`n` bytes) as fits, keeping the NUL's byte.
static void put(char *out, size_t cap, size_t *at, const char *s, size_t n) {
    if (*at + 1 >= cap) return;
    if (n > cap - 1 - *at) n = cap - 1 - *at;
    memcpy(out + *at, s, n);
    *at += n;
    out[*at] = 0;
}

static void put_str(char *out, size_t cap, size_t *at, const char *s) { put(out, cap, at, s, strlen(s)); }

// The length of the UTF-8 sequence `s` (`n` bytes left) starts with, its
// code point in *cp; 0 when it is not one (a stray or overlong byte, a
// surrogate, past U+10FFFF, cut short).
static size_t utf8_sequence(const unsigned char *s, size_t n, unsigned *cp) {
    unsigned c = s[0], min;
    size_t len;
    if (c < 0x80) { *cp = c; return 1; }
    if ((c & 0xE0) == 0xC0) { len = 2; *cp = c & 0x1F; min = 0x80; }
    else if ((c & 0xF0) == 0xE0) { len = 3; *cp = c & 0x0F; min = 0x800; }
    else if ((c & 0xF8) == 0xF0) { len = 4; *cp = c & 0x07; min = 0x10000; }
    else return 0;
    if (len > n) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        *cp = (*cp << 6) | (s[i] & 0x3F);
    }
    if (*cp < min || *cp > 0x10FFFF || (*cp >= 0xD800 && *cp <= 0xDFFF)) return 0;
    return len;
}

// `v` in upper-case hex without leading zeros, after `prefix`, before `suffix`.
static size_t hex_escape(char *unit, const char *prefix, unsigned v, const char *suffix) {
    static const char digits[] = "0123456789ABCDEF";
    size_t n = strlen(prefix);
    memcpy(unit, prefix, n);
    int shift = 28;
    while (shift > 0 && !(v >> shift)) shift -= 4;
    for (; shift >= 0; shift -= 4) unit[n++] = digits[(v >> shift) & 15];
    for (; *suffix; suffix++) unit[n++] = *suffix;
    return n;
}

// Appends `s` (`n` bytes), escaped, in at most `max` bytes; ends in "..."
// when cut.
static void put_escaped(char *out, size_t cap, size_t *at, const char *s, size_t n, size_t max) {
    const unsigned char *u = (const unsigned char *)s;
    size_t start = *at;
    for (size_t i = 0; i < n;) {
        char unit[16];
        unsigned cp;
        size_t used = utf8_sequence(u + i, n - i, &cp), len;
        if (!used) { len = hex_escape(unit, "\\x", u[i], ""); used = 1; }
        else if (cp == '\n') len = (memcpy(unit, "\\n", 2), 2);
        else if (cp == '\r') len = (memcpy(unit, "\\r", 2), 2);
        else if (cp == '\t') len = (memcpy(unit, "\\t", 2), 2);
        else if (cp == 0) len = (memcpy(unit, "\\0", 2), 2);
        else if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) len = hex_escape(unit, "\\u{", cp, "}");
        else len = (memcpy(unit, s + i, used), used);
        if (*at - start + len > max) { put_str(out, cap, at, "..."); return; }
        put(out, cap, at, unit, len);
        i += used;
    }
}

_Static_assert(FL_SUPP_PATTERN_MAX == 256 && FL_SUPP_MAX_ENTRIES == 256, "the reasons below name both limits");

static const char *reason(fl_supp_verdict verdict) {
    switch (verdict) {
    case FL_SUPP_NOT_A_SUPPRESSION: return "not a suppression (expected KIND:FUNCTION_OR_LIBRARY, KIND one of ";
    case FL_SUPP_PATTERN_TOO_LONG: return "pattern longer than 255 bytes";
    case FL_SUPP_TOO_MANY: return "more than 256 suppressions";
    default: return "a suppression";
    }
}

const char *fl_supp_advice(fl_supp_verdict verdict) {
    switch (verdict) {
    case FL_SUPP_NOT_A_SUPPRESSION: return "fix or delete the line";
    case FL_SUPP_PATTERN_TOO_LONG: return "shorten it (a substring of the function name or library path is enough)";
    case FL_SUPP_TOO_MANY: return "drop or merge some (one pattern may match many functions)";
    default: return "nothing to do";
    }
}

// `v` in decimal.
static size_t decimal(char *digits, unsigned v) {
    char rev[12];
    size_t n = 0;
    do { rev[n++] = (char)('0' + v % 10); v /= 10; } while (v);
    for (size_t i = 0; i < n; i++) digits[i] = rev[n - 1 - i];
    return n;
}

size_t fl_supp_describe(char *out, size_t cap, const char *file, fl_supp_verdict verdict, const fl_supp_line *line) {
    size_t at = 0;
    if (!cap) return 0;
    out[0] = 0;
    put_escaped(out, cap, &at, file, strlen(file), NAME_MAX_QUOTED);
    char number[16];
    number[0] = ':';
    size_t n = 1 + decimal(number + 1, (unsigned)line->number);
    put(out, cap, &at, number, n);
    put_str(out, cap, &at, ": ");
    put_str(out, cap, &at, reason(verdict));
    if (verdict == FL_SUPP_NOT_A_SUPPRESSION) {
        for (int k = 0; k < FL_SUPP_KINDS; k++) {
            if (k) put_str(out, cap, &at, ", ");
            put_str(out, cap, &at, fl_supp_kind_name((fl_supp_kind)k));
        }
        put_str(out, cap, &at, ")");
    }
    // The line itself is not what is wrong with a line past the 256th.
    if (verdict != FL_SUPP_TOO_MANY) {
        put_str(out, cap, &at, ": \"");
        put_escaped(out, cap, &at, line->text, line->text_len, VALUE_MAX_QUOTED);
        put_str(out, cap, &at, "\"");
    }
    return at;
}
