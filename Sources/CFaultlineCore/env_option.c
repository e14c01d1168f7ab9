#include "env_option.h"

#include <stdio.h>
#include <stdlib.h>

int fl_env_int(const char *name, int fallback, int lo, int hi) {
    const char *v = getenv(name);
    if (!v || !*v) return fallback;
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || n < lo || n > hi) {
        fprintf(stderr, "faultline: %s=%s is not a number in %d...%d; using %d\n", name, v, lo, hi, fallback);
        return fallback;
    }
    return (int)n;
}
