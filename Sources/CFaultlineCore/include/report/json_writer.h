// Allocation-free JSON writer into a caller-provided buffer. Safe to use in
// a signal handler. When the buffer fills, further output is dropped and
// `overflowed` is set; callers size the buffer so that never happens for
// reports within the documented limits.
#ifndef FL_JSON_WRITER_H
#define FL_JSON_WRITER_H

#include <stddef.h>
#include <stdint.h>

#define FL_JSON_MAX_DEPTH 32

/// Writer state. `faultline_writer` in the public header is this type.
typedef struct fl_json {
    char *buf;
    size_t cap;
    size_t len;
    int overflowed;
    int depth;
    /// Per nesting level: 1 when the next value needs a leading comma.
    unsigned char need_comma[FL_JSON_MAX_DEPTH];
} fl_json;

void fl_json_init(fl_json *w, char *buf, size_t cap);
void fl_json_begin_object(fl_json *w, const char *key);
void fl_json_end_object(fl_json *w);
void fl_json_begin_array(fl_json *w, const char *key);
void fl_json_end_array(fl_json *w);
/// `key` is NULL inside arrays.
void fl_json_string(fl_json *w, const char *key, const char *value);
/// A string from `len` raw bytes, escaped (invalid UTF-8 bytes become \u00XX).
void fl_json_string_n(fl_json *w, const char *key, const char *value, size_t len);
void fl_json_int(fl_json *w, const char *key, int64_t value);
void fl_json_uint(fl_json *w, const char *key, uint64_t value);
void fl_json_bool(fl_json *w, const char *key, int value);
/// An address as a hex string, "0x…" (JSON numbers lose 64-bit precision).
void fl_json_hex(fl_json *w, const char *key, uint64_t value);
void fl_json_null(fl_json *w, const char *key);
/// Embeds `len` bytes of already-valid JSON text as the value of `key`.
void fl_json_raw(fl_json *w, const char *key, const char *json, size_t len);

#endif
