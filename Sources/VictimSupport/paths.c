#include "victim_paths.h"

#include <string.h>
#include <unistd.h>

int victim_beside_self(char *out, size_t cap, const char *name) {
    size_t len = strlen(name);
    if (cap < len + 2) return -1;
    ssize_t n = readlink("/proc/self/exe", out, cap - len - 1);
    if (n <= 0) return -1;
    out[n] = 0;
    char *slash = strrchr(out, '/');
    if (!slash) return -1;
    memcpy(slash + 1, name, len + 1);
    return 0;
}
