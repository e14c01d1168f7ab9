// FAULTLINE_* option values: every number row of the options table, signal
// names, detector lists, the number parsers under them. Each takes any bytes without reading past
// the value's NUL and answers within its documented range.
#include "env_option.h"
#include "fl_options.h"
#include "signal_parse.h"
#include "sigsafe.h"

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char value[512];
    size_t n = size < sizeof value - 1 ? size : sizeof value - 1;
    memcpy(value, data, n);
    value[n] = 0;

    int sig = fl_parse_signal(value);
    if (sig < -1 || sig > SIGRTMAX) abort();

    char bad[64];
    memset(bad, 0x55, sizeof bad);
    if (fl_detector_list_unknown(value, bad, (int)sizeof bad) && memchr(bad, 0, sizeof bad) == 0) abort();

    const char *end = 0;
    fl_parse_dec(value, &end);
    if (end < value || end > value + n) abort();
    fl_parse_hex(value, &end);
    if (end < value || end > value + n) abort();

    // Every number row of the options table as the agent and the shim read
    // it (fl_option_number, and fl_env_int, which says one line about a bad
    // value and removes the variable from the environment): set, valid and
    // in range, or the default.
    if (memchr(data, 0, size) == 0) {
        for (int id = 0; id < fl_option_count(); id++) {
            const fl_option_info *o = fl_option_at(id);
            if (!o || o->type == FL_OPT_TEXT || o->type == FL_OPT_PATH || o->type == FL_OPT_LIST ||
                o->type == FL_OPT_WORD || o->type == FL_OPT_FLAG || setenv(o->name, value, 1) != 0) continue;
            long long v;
            int rc = fl_option_number((fl_option_id)id, &v);
            if (rc < -1 || rc > 1) abort();
            if (rc != 1 && v != fl_option_default((fl_option_id)id)) abort();
            if (rc == 1 && (v < fl_option_lo((fl_option_id)id) || v > fl_option_hi((fl_option_id)id))) abort();
            if (fl_option_hi((fl_option_id)id) <= 0x7fffffff) {
                int e = fl_env_int((fl_option_id)id);
                if (e != fl_option_default((fl_option_id)id) && (e < fl_option_lo((fl_option_id)id) || e > fl_option_hi((fl_option_id)id))) abort();
            }
            unsetenv(o->name);
        }
    }
    return 0;
}
