#include "fl_options.h"

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

static const fl_option_info k_rows[FL_OPT_COUNT] = {
#define ROW_NUM(id, type, def, lo, hi, owner, flags, doc) {"FAULTLINE_" #id, type, def, lo, hi, "", owner, flags, doc},
#define ROW_TEXT(id, type, def, owner, flags, doc) {"FAULTLINE_" #id, type, 0, 0, 0, def, owner, flags, doc},
    FL_OPTION_ROWS(ROW_NUM, ROW_TEXT)
#undef ROW_NUM
#undef ROW_TEXT
};

int fl_option_count(void) { return FL_OPT_COUNT; }

const fl_option_info *fl_option_at(int id) { return id >= 0 && id < FL_OPT_COUNT ? &k_rows[id] : NULL; }

// A real uid of root is exempt: root set the environment and could write
// anywhere anyway. The kernel marks its exec after a temporary drop (real
// uid 0, effective 65534) secure too (crash.exec-after-temporary-drop).
int fl_option_secure(void) { return getauxval(AT_SECURE) != 0 && getuid() != 0; }

// Appends `s` to the line at `*n` (cut at `cap`, room for the newline kept).
static void append(char *line, size_t *n, size_t cap, const char *s) {
    size_t len = strlen(s);
    if (len > cap - 2 - *n) len = cap - 2 - *n;
    memcpy(line + *n, s, len);
    *n += len;
}

// Once per process image (per copy of this table: the agent's, the shim's):
// which variables secure execution ignores, all those set, in one line.
static void say_ignored(void) {
    static int said;
    if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED)) return;
    char line[768];
    size_t n = 0;
    append(line, &n, sizeof line, "faultline: secure execution (a set-user-ID, set-group-ID or file-capability program started by another user): ignoring ");
    int listed = 0;
    for (int i = 0; i < FL_OPT_COUNT; i++) {
        if (!(k_rows[i].flags & FL_OPT_OUTPUT) || !getenv(k_rows[i].name)) continue;
        if (listed++) append(line, &n, sizeof line, ", ");
        append(line, &n, sizeof line, k_rows[i].name);
    }
    append(line, &n, sizeof line, ", which name paths or where output goes; reports go to stderr only");
    line[n++] = '\n';
    for (size_t done = 0; done < n;) {
        ssize_t w = write(2, line + done, n - done);
        if (w <= 0) break;
        done += (size_t)w;
    }
}

const char *fl_option_value(fl_option_id id) {
    if ((unsigned)id >= FL_OPT_COUNT) return NULL;
    const char *v = getenv(k_rows[id].name);
    if (v && (k_rows[id].flags & FL_OPT_OUTPUT) && fl_option_secure()) {
        say_ignored();
        return NULL;
    }
    return v;
}

// Signals count from SIGRTMIN in the table: it is a function call in glibc.
static long long absolute(const fl_option_info *o, long long n) { return o->type == FL_OPT_SIGNAL ? SIGRTMIN + n : n; }

long long fl_option_default(fl_option_id id) { return (unsigned)id < FL_OPT_COUNT ? absolute(&k_rows[id], k_rows[id].number) : 0; }
long long fl_option_lo(fl_option_id id) { return (unsigned)id < FL_OPT_COUNT ? absolute(&k_rows[id], k_rows[id].lo) : 0; }
long long fl_option_hi(fl_option_id id) { return (unsigned)id < FL_OPT_COUNT ? absolute(&k_rows[id], k_rows[id].hi) : 0; }

// Decimal digits, then for sizes one of K, M, G and an optional B; 0 on
// success. Overflow is an error, never a wrap (a quarantine of one byte).
static int parse(const char *s, int sized, long long *out) {
    if (*s < '0' || *s > '9') return -1;
    uint64_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++)
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, (uint64_t)(*s - '0'), &v)) return -1;
    uint64_t mul = 1;
    if (sized) {
        if (*s == 'K' || *s == 'k') { mul = 1ull << 10; s++; }
        else if (*s == 'M' || *s == 'm') { mul = 1ull << 20; s++; }
        else if (*s == 'G' || *s == 'g') { mul = 1ull << 30; s++; }
        if (*s == 'B' || *s == 'b') s++;
    }
    if (*s || __builtin_mul_overflow(v, mul, &v) || v > (uint64_t)INT64_MAX) return -1;
    *out = (long long)v;
    return 0;
}

int fl_option_number(fl_option_id id, long long *out) {
    *out = fl_option_default(id);
    const char *v = fl_option_value(id);
    if (!v || !*v) return 0;
    long long n;
    if (parse(v, k_rows[id].type == FL_OPT_SIZE, &n) != 0 || n < fl_option_lo(id) || n > fl_option_hi(id)) return -1;
    *out = n;
    return 1;
}
