// The suppressions file's parser (FAULTLINE_SUPPRESSIONS, read by the malloc
// shim before main): every line of any file is an entry inside the text,
// or a verdict whose message fits its buffer.
#include "suppressions_parse.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fl_supp_reader reader;
    memset(&reader, 0, sizeof reader);
    reader.text = (const char *)data;
    reader.len = size;
    const char *end = reader.text + size;
    char message[FL_SUPP_DESCRIBE_MAX];
    for (int lines = 0;; lines++) {
        fl_supp_line line;
        fl_supp_verdict v = fl_supp_next(&reader, &line);
        if (v == FL_SUPP_END) break;
        if (lines > (int)size + 1) abort();  // no progress
        if (line.text < reader.text || line.text + line.text_len > end) abort();
        if (v == FL_SUPP_ENTRY) {
            if (line.pattern < line.text || line.pattern + line.pattern_len > line.text + line.text_len) abort();
            if (line.pattern_len == 0 || line.pattern_len >= FL_SUPP_PATTERN_MAX) abort();
            if (!fl_supp_kind_name(line.kind)) abort();
        } else {
            size_t n = fl_supp_describe(message, sizeof message, "fuzz.supp", v, &line);
            if (n >= sizeof message || message[n] != 0 || strlen(message) != n) abort();
            if (!fl_supp_advice(v)) abort();
        }
    }
    return 0;
}
