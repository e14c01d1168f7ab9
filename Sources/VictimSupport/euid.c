#include "victim_euid.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOBODY 65534

int victim_become_nobody(const char *how) {
    if (getuid() != 0 || geteuid() != 0) {
        fprintf(stderr, "victim: not root (uid %d, euid %d); run as root\n", (int)getuid(), (int)geteuid());
        return -1;
    }
    int temporary = how && !strcmp(how, "temporary"), permanent = how && !strcmp(how, "permanent");
    if (!temporary && !permanent) {
        fprintf(stderr, "victim: become nobody how? temporary or permanent, not '%s'\n", how ? how : "");
        return -1;
    }
    // The group first: once the uid is not 0 the process may no longer change it.
    int rc = temporary ? setegid(NOBODY) : setresgid(NOBODY, NOBODY, NOBODY);
    if (rc == 0) rc = temporary ? seteuid(NOBODY) : setresuid(NOBODY, NOBODY, NOBODY);
    if (rc != 0) {
        fprintf(stderr, "victim: cannot become nobody: %s\n", strerror(errno));
        return -1;
    }
    uid_t r, e, s;
    getresuid(&r, &e, &s);
    fprintf(stderr, "victim: %s: uid real %d, effective %d, saved %d\n",
            temporary ? "temporarily nobody" : "nobody for good", (int)r, (int)e, (int)s);
    return 0;
}

// Copies the value of status line `key` ("\nUid:") of thread `tid`
// (NULL: the main thread) into `out`; "" when it cannot be read.
static void status_line(const char *tid, const char *key, char *out, size_t cap) {
    char path[64], text[4096];
    if (tid) snprintf(path, sizeof path, "/proc/self/task/%s/status", tid);
    else snprintf(path, sizeof path, "/proc/self/task/%d/status", (int)getpid());
    out[0] = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    text[n > 0 ? n : 0] = 0;
    const char *at = strstr(text, key);
    if (!at) return;
    at += strlen(key);
    size_t len = strcspn(at, "\n");
    snprintf(out, cap, "%.*s", (int)len, at);
}

// 0 when thread `tid` shows main's value of every key; otherwise -1, with
// what differs in `why`.
static int differs_from_main(const char *tid, char *why, size_t cap) {
    static const char *const keys[] = {"\nUid:", "\nGid:", "\nCapEff:"};
    for (unsigned i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char mine[128], main_value[128];
        status_line(tid, keys[i], mine, sizeof mine);
        status_line(0, keys[i], main_value, sizeof main_value);
        if (strcmp(mine, main_value) != 0) {
            snprintf(why, cap, "thread %s has %s%s, main%s", tid, keys[i] + 1, mine, main_value);
            return -1;
        }
    }
    return 0;
}

int victim_threads_have_main_ids(void) {
    char why[512] = "";
    for (int attempt = 0; attempt < 300; attempt++) {
        DIR *d = opendir("/proc/self/task");
        if (!d) { perror("victim: /proc/self/task"); return -1; }
        int bad = 0;
        for (struct dirent *e; !bad && (e = readdir(d));)
            if (e->d_name[0] != '.') bad = differs_from_main(e->d_name, why, sizeof why) != 0;
        closedir(d);
        if (!bad) {
            fprintf(stderr, "victim: every thread has main's ids, filesystem ids included, and its effective capabilities\n");
            return 0;
        }
        struct timespec ten_ms = {0, 10000000};
        nanosleep(&ten_ms, 0);
    }
    fprintf(stderr, "victim: after 3 s %s\n", why);
    return -1;
}
