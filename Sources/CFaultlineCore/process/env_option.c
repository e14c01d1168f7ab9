#include "tool_log.h"
#include "env_option.h"
#include "thread_count.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fl_env_int_quietly(fl_option_id id, int quiet) {
    long long n;
    if (fl_option_number(id, &n) < 0) {
        if (!quiet) {
            const char *name = fl_option_at(id)->name;
            fl_log_printf("faultline: %s=%s is not a number in %lld...%lld; using %lld\n", name, fl_option_value(id),
                    fl_option_lo(id), fl_option_hi(id), n);
            fl_option_said(name);
        }
    }
    return (int)n;
}

// unsetenv shifts the environment array under any concurrent getenv, which
// glibc does not guard: only while the program has one thread (always, in
// the preloaded constructors; a linked faultline_install may come later).
void fl_option_said(const char *name) {
    if (fl_program_threads() == 1) unsetenv(name);
}

int fl_env_int(fl_option_id id) { return fl_env_int_quietly(id, 0); }

int fl_detector_list_unknown(const char *list, char *bad, int cap) {
    static const char *const known[] = {"crash", "cxx_exception", "hang", "memory", "use_after_free", "leaks", "shim",
                                         "cpu", "fds", "threads", "launch"};
    if (!list || !*list || strcmp(list, "all") == 0 || strcmp(list, "none") == 0) return 0;
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        int found = 0;
        for (unsigned i = 0; i < sizeof known / sizeof known[0] && !found; i++)
            found = strlen(known[i]) == len && strncmp(known[i], p, len) == 0;
        if (!found) {
            if (bad && cap > 0) { size_t n = len < (size_t)cap - 1 ? len : (size_t)cap - 1; memcpy(bad, p, n); bad[n] = 0; }
            return 1;
        }
        p = e ? e + 1 : p + len;
    }
    return 0;
}
