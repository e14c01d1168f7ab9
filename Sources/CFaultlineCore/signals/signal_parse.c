#include "signal_parse.h"

#include <signal.h>
#include <stddef.h>

static const struct { const char *name; int sig; } k_names[] = {
    {"HUP", SIGHUP},     {"INT", SIGINT},       {"QUIT", SIGQUIT},     {"ILL", SIGILL},   {"TRAP", SIGTRAP},
    {"ABRT", SIGABRT},   {"IOT", SIGIOT},       {"BUS", SIGBUS},       {"FPE", SIGFPE},   {"KILL", SIGKILL},
    {"USR1", SIGUSR1},   {"SEGV", SIGSEGV},     {"USR2", SIGUSR2},     {"PIPE", SIGPIPE}, {"ALRM", SIGALRM},
    {"TERM", SIGTERM},   {"STKFLT", SIGSTKFLT}, {"CHLD", SIGCHLD},     {"CONT", SIGCONT}, {"STOP", SIGSTOP},
    {"TSTP", SIGTSTP},   {"TTIN", SIGTTIN},     {"TTOU", SIGTTOU},     {"URG", SIGURG},   {"XCPU", SIGXCPU},
    {"XFSZ", SIGXFSZ},   {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF},     {"WINCH", SIGWINCH},
    {"IO", SIGIO},       {"POLL", SIGPOLL},     {"PWR", SIGPWR},       {"SYS", SIGSYS},
};

static char upper(char c) { return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c; }

// Whether `s` starts with `word` (any case); `*rest` after it.
static int starts(const char *s, const char *word, const char **rest) {
    for (; *word; s++, word++)
        if (upper(*s) != *word) return 0;
    *rest = s;
    return 1;
}

// A decimal number of at most 4 digits making up all of `s`, or -1.
static int small_number(const char *s) {
    int v = 0, digits = 0;
    for (; *s >= '0' && *s <= '9'; s++)
        if (++digits > 4) return -1;
        else v = v * 10 + (*s - '0');
    return digits && !*s ? v : -1;
}

int fl_parse_signal(const char *text) {
    if (!text || !*text) return -1;
    int n = small_number(text);
    if (n >= 0) return n <= SIGRTMAX ? n : -1;
    const char *s = text, *rest;
    if (starts(s, "SIG", &rest)) s = rest;
    int base = -1;
    if (starts(s, "RTMIN", &rest)) base = SIGRTMIN;
    else if (starts(s, "RTMAX", &rest)) base = SIGRTMAX;
    if (base >= 0) {
        if (!*rest) return base;
        int off = (*rest == '+' || *rest == '-') ? small_number(rest + 1) : -1;
        if (off < 0) return -1;
        int sig = *rest == '+' ? base + off : base - off;
        return sig >= SIGRTMIN && sig <= SIGRTMAX ? sig : -1;
    }
    for (size_t i = 0; i < sizeof k_names / sizeof k_names[0]; i++)
        if (starts(s, k_names[i].name, &rest) && !*rest) return k_names[i].sig;
    return -1;
}
