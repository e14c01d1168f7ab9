#include "memory_pressure.h"
#include "fd_guard.h"
#include "fd_high.h"
#include "fd_transient.h"
#include "sigsafe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

enum { KIND_V1_LEVEL = 1, KIND_PSI, KIND_V2_EVENTS };

// The fds stay open for the monitor's life; a program closing every fd
// must not take them (their numbers would then be another file's).
static void add(fl_pressure *p, int fd, short events, int kind, int ctl) {
    fd = fl_fd_guard(fd);
    ctl = fl_fd_guard(ctl);
    p->pfds[p->count] = (struct pollfd){ .fd = fd, .events = events };
    p->kinds[p->count] = kind;
    p->ctl_fds[p->count] = ctl;
    p->count++;
}

/// The `high` line of memory.events (v2), 0 when absent.
static uint64_t read_high(int fd) {
    char buf[512];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) return 0;
    buf[n] = 0;
    for (char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : 0)
        if (fl_startswith(l, "high ")) return fl_parse_dec(l + 5, 0);
    return 0;
}

static int open_v1_level(fl_pressure *p, const fl_memcg *m, const char *level, char *why, int cap) {
    char path[PATH_MAX + 64], line[96];
    snprintf(path, sizeof path, "%s/memory.pressure_level", m->dir);
    int pfd = fl_open_high(path, O_RDONLY | O_CLOEXEC);
    fl_fd_open_begin();
    int efd = fl_fd_move_high(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    fl_fd_open_end();
    snprintf(path, sizeof path, "%s/cgroup.event_control", m->dir);
    int cfd = fl_open_high(path, O_WRONLY | O_CLOEXEC);
    if (pfd < 0 || efd < 0 || cfd < 0) goto fail;
    // "local": only reclaim in this cgroup itself. The default mode also
    // passes up pressure from descendant cgroups that have no listener (a
    // runner's limited child cgroups), which is not pressure on us.
    int n = snprintf(line, sizeof line, "%d %d %s,local", efd, pfd, level);
    if (write(cfd, line, (size_t)n) != n) goto fail;
    fl_close_high(cfd);
    add(p, efd, POLLIN, KIND_V1_LEVEL, pfd);
    return 1;
fail:
    snprintf(why, cap, "v1 memory.pressure_level not registered in %s: %s", m->dir, strerror(errno));
    fl_close_high(pfd);
    if (efd >= 0) close(efd);
    fl_close_high(cfd);
    return 0;
}

static int open_psi(fl_pressure *p, const char *dir, const char *trigger, char *why, int cap) {
    snprintf(p->psi_path, sizeof p->psi_path, "%s/memory.pressure", dir);
    int fd = fl_open_high(p->psi_path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 || write(fd, trigger, strlen(trigger) + 1) < 0) {
        // EINVAL: without CAP_SYS_RESOURCE the window must be a multiple of 2 s.
        snprintf(why, cap, "PSI trigger '%s' not set on %s: %s", trigger, p->psi_path, strerror(errno));
        fl_close_high(fd);
        return 0;
    }
    add(p, fd, POLLPRI, KIND_PSI, -1);
    p->psi_on = 1;
    return 1;
}

int fl_pressure_open(fl_pressure *p, const fl_memcg *m, const char *level, const char *trigger, const char *fallback,
                     char *why, int why_cap) {
    memset(p, 0, sizeof *p);
    why[0] = 0;
    fl_strlcpy(p->level, level, sizeof p->level);
    fl_strlcpy(p->trigger, trigger, sizeof p->trigger);
    if (m->version == 1 && strcmp(level, "off") != 0 && !open_v1_level(p, m, level, why, why_cap))
        fl_strlcpy(p->level_refused, why, sizeof p->level_refused);
    // PSI of our own v2 cgroup; the root's is the whole machine's, not ours.
    const char *v2 = m->version == 2 ? m->dir : m->v2_dir;
    if (strcmp(trigger, "off") != 0 && v2[0] && !(m->version == 2 && strcmp(m->path, "/") == 0) &&
        !open_psi(p, v2, trigger, why, why_cap) && fallback) {
        fl_strlcpy(p->psi_refused, why, sizeof p->psi_refused);
        if (strcmp(fallback, trigger) != 0 && open_psi(p, v2, fallback, why, why_cap)) fl_strlcpy(p->trigger, fallback, sizeof p->trigger);
    }
    if (m->version == 2) {
        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, "%s/memory.events", m->dir);
        int fd = fl_open_high(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) { p->high_seen = read_high(fd); add(p, fd, POLLPRI, KIND_V2_EVENTS, -1); }
    }
    return p->count;
}

int fl_pressure_take(fl_pressure *p, int i, fl_json *w) {
    struct pollfd *f = &p->pfds[i];
    switch (p->kinds[i]) {
    case KIND_V1_LEVEL: {
        uint64_t n;
        if (read(f->fd, &n, sizeof n) != (ssize_t)sizeof n) return 0;
        fl_json_begin_object(w, "pressure");
        fl_json_string(w, "source", "memory.pressure_level");
        fl_json_string(w, "level", p->level);
        fl_json_uint(w, "events", n);
        fl_json_end_object(w);
        return 1;
    }
    case KIND_PSI: {
        if (f->revents & POLLERR) { f->fd = -f->fd - 1; return 0; }  // trigger gone: stop polling it
        char text[256];
        ssize_t n = fl_read_file(p->psi_path, text, sizeof text);
        fl_json_begin_object(w, "pressure");
        fl_json_string(w, "source", "memory.pressure");
        fl_json_string(w, "trigger", p->trigger);
        if (n > 0) fl_json_string(w, "psi", text);
        fl_json_end_object(w);
        return 1;
    }
    case KIND_V2_EVENTS: {
        uint64_t high = read_high(f->fd);
        if (high <= p->high_seen) return 0;
        fl_json_begin_object(w, "pressure");
        fl_json_string(w, "source", "memory.events high");
        fl_json_uint(w, "high_events", high);
        fl_json_uint(w, "new_high_events", high - p->high_seen);
        fl_json_end_object(w);
        p->high_seen = high;
        return 1;
    }
    }
    return 0;
}

void fl_pressure_close(fl_pressure *p) {
    for (int i = 0; i < p->count; i++) {
        int fd = p->pfds[i].fd < 0 ? -p->pfds[i].fd - 1 : p->pfds[i].fd;
        fl_fd_close(fd);
        if (p->ctl_fds[i] >= 0) fl_fd_close(p->ctl_fds[i]);
    }
    p->count = 0;
}
