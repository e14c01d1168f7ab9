#include "json_writer.h"
#include "sigsafe.h"

void fl_json_init(fl_json *w, char *buf, size_t cap) {
    w->buf = buf; w->cap = cap; w->len = 0; w->overflowed = 0; w->depth = 0;
    for (int i = 0; i < FL_JSON_MAX_DEPTH; i++) w->need_comma[i] = 0;
}

static void raw(fl_json *w, const char *s, size_t n) {
    if (w->len + n > w->cap) { w->overflowed = 1; return; }
    for (size_t i = 0; i < n; i++) w->buf[w->len + i] = s[i];
    w->len += n;
}

static void ch(fl_json *w, char c) { raw(w, &c, 1); }

static void escaped(fl_json *w, const char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    ch(w, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': raw(w, "\\\"", 2); break;
        case '\\': raw(w, "\\\\", 2); break;
        case '\n': raw(w, "\\n", 2); break;
        case '\r': raw(w, "\\r", 2); break;
        case '\t': raw(w, "\\t", 2); break;
        default:
            if (c < 0x20 || c == 0x7f) {
                char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
                raw(w, u, 6);
            } else if (c >= 0x80) {
                // Pass well-formed UTF-8 sequences through; escape stray bytes
                // so the file stays valid JSON whatever the program printed.
                size_t need = (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : 0;
                size_t ok = need > 0 && i + need < n ? 1 : 0;
                for (size_t k = 1; ok && k <= need; k++)
                    if (i + k >= n || ((unsigned char)s[i + k] & 0xC0) != 0x80) ok = 0;
                if (ok) { raw(w, s + i, need + 1); i += need; }
                else { char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]}; raw(w, u, 6); }
            } else {
                ch(w, (char)c);
            }
        }
    }
    ch(w, '"');
}

static void prefix(fl_json *w, const char *key) {
    if (w->depth > 0 && w->depth <= FL_JSON_MAX_DEPTH) {
        if (w->need_comma[w->depth - 1]) ch(w, ',');
        w->need_comma[w->depth - 1] = 1;
    }
    if (key) { escaped(w, key, fl_strlen(key)); ch(w, ':'); }
}

static void open_(fl_json *w, const char *key, char c) {
    prefix(w, key);
    ch(w, c);
    // Deeper than the comma table reaches, the text would lose its commas:
    // flagged like a full buffer rather than written wrong.
    if (w->depth < FL_JSON_MAX_DEPTH) w->need_comma[w->depth] = 0;
    else w->overflowed = 1;
    w->depth++;
}

void fl_json_begin_object(fl_json *w, const char *key) { open_(w, key, '{'); }
void fl_json_end_object(fl_json *w) { if (w->depth > 0) w->depth--; ch(w, '}'); }
void fl_json_begin_array(fl_json *w, const char *key) { open_(w, key, '['); }
void fl_json_end_array(fl_json *w) { if (w->depth > 0) w->depth--; ch(w, ']'); }

void fl_json_string(fl_json *w, const char *key, const char *value) {
    fl_json_string_n(w, key, value ? value : "", fl_strlen(value));
}

void fl_json_string_n(fl_json *w, const char *key, const char *value, size_t len) {
    prefix(w, key);
    escaped(w, value, len);
}

void fl_json_int(fl_json *w, const char *key, int64_t value) {
    char b[24];
    prefix(w, key);
    raw(w, b, fl_fmt_i64(b, value));
}

void fl_json_uint(fl_json *w, const char *key, uint64_t value) {
    char b[24];
    prefix(w, key);
    raw(w, b, fl_fmt_u64(b, value));
}

void fl_json_bool(fl_json *w, const char *key, int value) {
    prefix(w, key);
    if (value) raw(w, "true", 4); else raw(w, "false", 5);
}

void fl_json_hex(fl_json *w, const char *key, uint64_t value) {
    char b[24];
    prefix(w, key);
    ch(w, '"');
    raw(w, b, fl_fmt_hex(b, value));
    ch(w, '"');
}

void fl_json_null(fl_json *w, const char *key) {
    prefix(w, key);
    raw(w, "null", 4);
}

void fl_json_raw(fl_json *w, const char *key, const char *json, size_t len) {
    prefix(w, key);
    raw(w, json, len);
}
