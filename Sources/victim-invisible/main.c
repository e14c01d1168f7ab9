// victim-invisible: programs that check Faultline leaves them as they would
// run without it under `faultline exec` (docs/reports.md, "Where output
// goes"): their stderr byte for byte, the terminal on fd 2, no descriptors
// of Faultline's after a close-all; and a leak left by _exit.
// `exec-self CASE` runs this program's CASE under `faultline exec` (found
// next to this executable), with the runner's report directory, so a
// scenario checks what exec did.
#include "invisible_cases.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct { const char *name; int (*run)(int, char **); const char *doc; } k_cases[] = {
    {"exec-self", invisible_exec_self, "CASE...: run CASE under faultline exec (next to this program) into $FAULTLINE_REPORT_DIR"},
    {"script-self", invisible_script_self, "CASE...: exec-self CASE under a pseudo-terminal (script -qec)"},
    {"stderr-compare", invisible_stderr_compare, "run the child cases below with pipes and compare their stdout and stderr byte for byte"},
    {"child-leak", invisible_child_leak, "lose a 100-byte block, write a line to stdout and two to stderr"},
    {"child-crash", invisible_child_crash, "write lines, then fault on NULL"},
    {"child-write-after-free", invisible_child_write_after_free, "write into a freed block, write lines"},
    {"isatty", invisible_isatty, "say whether fds 0-2 and fileno(stderr) are terminals, write to stderr, then crash"},
    {"close-all", invisible_close_all, "loop|closefrom|close_range [exhaust]: close every fd above 2, list /proc/self/fd, (use up every fd,) then crash"},
    {"list-fds", invisible_list_fds, "[LABEL]: list the kinds of the fds above 2 (pipe, /dev/null, /proc, /sys, ...)"},
    {"child-after-close-all", invisible_child_after_close_all, "close every fd above 2, then list-fds in a child"},
    {"raised-limit-child", invisible_raised_limit_child, "[setrlimit|prlimit] [loop|close_range] [crash]: raise the soft fd limit to the hard one, fork a worker that closes every fd below it, lists the rest (and crashes)"},
    {"exit-leak", invisible_exit_leak, "_exit|exit_group: lose a block, then leave by _exit or a raw exit_group"},
    {"compile", invisible_compile, "build a one-line C program with gcc (cc1, as, collect2 run under /usr/lib/gcc)"},
};

int invisible_self(char *buf, size_t cap) {
    ssize_t n = readlink("/proc/self/exe", buf, cap - 1);
    if (n <= 0) return -1;
    buf[n] = 0;
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1)
        for (size_t i = 0; i < sizeof k_cases / sizeof k_cases[0]; i++)
            if (strcmp(argv[1], k_cases[i].name) == 0) return k_cases[i].run(argc, argv);
    fprintf(stderr, "usage: victim-invisible CASE\n");
    for (size_t i = 0; i < sizeof k_cases / sizeof k_cases[0]; i++) fprintf(stderr, "  %-22s %s\n", k_cases[i].name, k_cases[i].doc);
    return 64;
}
