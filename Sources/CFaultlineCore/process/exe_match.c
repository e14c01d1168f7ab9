#include "exe_match.h"
#include "sigsafe.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

// `p` (up to `pe`) against all of `s`, with backtracking on the last `*`.
static int glob_match(const char *p, const char *pe, const char *s) {
    const char *star = 0, *resume = 0;
    while (*s) {
        if (p < pe && (*p == '?' || *p == *s)) { p++; s++; continue; }
        if (p < pe && *p == '*') { star = p++; resume = s; continue; }
        if (!star) return 0;
        p = star + 1;
        s = ++resume;
    }
    while (p < pe && *p == '*') p++;
    return p == pe;
}

int fl_glob_list_match(const char *patterns, const char *path) {
    if (!patterns || !path) return 0;
    for (const char *p = patterns; *p;) {
        const char *e = p;
        while (*e && *e != ',') e++;
        if (e > p && glob_match(p, e, path)) return 1;
        p = *e ? e + 1 : e;
    }
    return 0;
}

int fl_exe_matches_env(const char *name, const char *fallback) {
    const char *patterns = getenv(name);
    if (!patterns) patterns = fallback;
    if (!patterns || !*patterns) return 0;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return 0;
    exe[n] = 0;
    return fl_glob_list_match(patterns, exe);
}
