#include "victim_fds.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#define VICTIM_FDS_MAX 4096

static int g_fds[VICTIM_FDS_MAX];
static int g_count;

int victim_use_up_fds(void) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur > VICTIM_FDS_MAX) {
        rl.rlim_cur = VICTIM_FDS_MAX;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    while (g_count < VICTIM_FDS_MAX) {
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd < 0) return g_count;
        g_fds[g_count++] = fd;
    }
    errno = 0;  // cannot happen: 0, 1 and 2 are open too
    return g_count;
}

void victim_release_fds(void) {
    while (g_count > 0) close(g_fds[--g_count]);
}
