#include "memory_cgroup.h"
#include "fd_transient.h"
#include "fd_guard.h"
#include "line_reader.h"
#include "sigsafe.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

int fl_memcg_read(int fd, uint64_t *out) {
    char buf[64];
    if (fd < 0) return -1;
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) return -1;
    buf[n] = 0;
    if (buf[0] == 'm') { *out = UINT64_MAX; return 0; }  // v2 "max"
    const char *end;
    uint64_t v = fl_parse_dec(buf, &end);
    if (end == buf) return -1;
    *out = v >= (1ull << 62) ? UINT64_MAX : v;
    return 0;
}

uint64_t fl_memcg_usage(const fl_memcg *m) {
    uint64_t v = 0;
    return fl_memcg_read(m->usage_fd, &v) == 0 ? v : 0;
}

uint64_t fl_memcg_limit(const fl_memcg *m) {
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < m->limit_count; i++) {
        uint64_t v;
        if (fl_memcg_read(m->limit_fds[i], &v) == 0 && v < best) best = v;
    }
    return best;
}

uint64_t fl_memcg_peak(const fl_memcg *m) {
    uint64_t v = 0;
    return fl_memcg_read(m->peak_fd, &v) == 0 && v != UINT64_MAX ? v : 0;
}

/// One cgroup mount from mountinfo.
typedef struct { char root[PATH_MAX]; char point[PATH_MAX]; int version; int has_memory; } mount_entry;

/// mountinfo escapes blanks as \ooo.
static void unescape(char *s) {
    char *w = s;
    for (char *r = s; *r; ) {
        if (r[0] == '\\' && r[1] >= '0' && r[1] <= '7' && r[2] && r[3]) {
            *w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
            r += 4;
        } else *w++ = *r++;
    }
    *w = 0;
}

/// What one read of mountinfo or /proc/self/cgroup finds: the v1 memory
/// hierarchy's (index 0) and v2's (index 1) first mount or our path in it;
/// `found` is a mask, 1 for v1, 2 for v2.
typedef struct { mount_entry *mounts; char (*paths)[PATH_MAX]; int found; } cgroup_scan;

/// A mountinfo line: the v1 mount with the memory controller, or the v2 mount.
static int mount_line(char *line, void *vctx) {
    cgroup_scan *c = vctx;
    char *sep = strstr(line, " - ");
    if (!sep) return 0;
    *sep = 0;
    char *fields[6], *save = 0;
    int n = 0;
    for (char *t = strtok_r(line, " ", &save); t && n < 6; t = strtok_r(0, " ", &save)) fields[n++] = t;
    if (n < 5) return 0;
    char *fstype = strtok_r(sep + 3, " ", &save);
    char *source = fstype ? strtok_r(0, " ", &save) : 0;
    char *opts = source ? strtok_r(0, " ", &save) : 0;
    if (!fstype || !opts) return 0;
    int is_v1_memory = 0;
    if (strcmp(fstype, "cgroup") == 0) {
        char *osave = 0;
        for (char *o = strtok_r(opts, ",", &osave); o; o = strtok_r(0, ",", &osave))
            if (strcmp(o, "memory") == 0) is_v1_memory = 1;
    }
    int version = is_v1_memory ? 1 : strcmp(fstype, "cgroup2") == 0 ? 2 : 0;
    if (!version || (c->found & version)) return 0;
    mount_entry *out = &c->mounts[version - 1];
    fl_strlcpy(out->root, fields[3], sizeof out->root);
    fl_strlcpy(out->point, fields[4], sizeof out->point);
    unescape(out->root);
    unescape(out->point);
    out->version = version;
    c->found |= version;
    return c->found == 3;
}

/// A /proc/self/cgroup line: our path in the v1 memory hierarchy, or in v2.
static int path_line(char *line, void *vctx) {
    cgroup_scan *c = vctx;
    char *c1 = strchr(line, ':');
    char *c2 = c1 ? strchr(c1 + 1, ':') : 0;
    if (!c2) return 0;
    *c2 = 0;
    const char *controllers = c1 + 1;
    int version = 0;
    if (strncmp(line, "0:", 2) == 0 && controllers[0] == 0) version = 2;
    else {
        char tmp[256], *save = 0;
        fl_strlcpy(tmp, controllers, sizeof tmp);
        for (char *o = strtok_r(tmp, ",", &save); o; o = strtok_r(0, ",", &save))
            if (strcmp(o, "memory") == 0) version = 1;
    }
    if (!version || (c->found & version)) return 0;
    fl_strlcpy(c->paths[version - 1], c2 + 1, PATH_MAX);
    c->found |= version;
    return c->found == 3;
}

/// The directory of hierarchy path `path` under mount `m`.
static int directory_of(const mount_entry *m, const char *path, char *out, size_t cap) {
    size_t rl = strcmp(m->root, "/") == 0 ? 0 : strlen(m->root);
    if (rl && (strncmp(path, m->root, rl) != 0 || (path[rl] != '/' && path[rl] != 0))) return -1;
    const char *rest = path + rl;
    if (strcmp(rest, "/") == 0) rest = "";
    if ((size_t)snprintf(out, cap, "%s%s", m->point, rest) >= cap) return -1;
    return 0;
}

// Counters and limits are read for the monitor's life, so a program that
// closes every fd must not take them.
static int open_ro(const char *dir, const char *file) {
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    return fl_fd_guard(fl_open_high(p, O_RDONLY | O_CLOEXEC));
}

void fl_memcg_close(fl_memcg *m) {
    if (m->usage_fd >= 0) fl_fd_close(m->usage_fd);
    if (m->peak_fd >= 0) fl_fd_close(m->peak_fd);
    for (int i = 0; i < m->limit_count; i++) fl_fd_close(m->limit_fds[i]);
    m->usage_fd = m->peak_fd = -1;
    m->limit_count = 0;
}

// The usual mount of a hierarchy, `point` with the whole hierarchy at
// it, when `point` is one of that version (statfs): `out` describes it.
static int usual_mount(const char *point, long magic, int version, mount_entry *out) {
    struct statfs st;
    if (statfs(point, &st) != 0 || st.f_type != magic) return 0;
    fl_strlcpy(out->root, "/", sizeof out->root);
    fl_strlcpy(out->point, point, sizeof out->point);
    out->version = version;
    return 1;
}

// Opens the files of the cgroup `paths` name under `mounts`, for the
// versions `have` holds both of. Opens nothing when it fails.
static int open_found(fl_memcg *m, const mount_entry *mounts, char (*paths)[PATH_MAX], int have, int only_limited, char *why,
                      int why_cap) {
    memset(m, 0, sizeof *m);
    m->usage_fd = m->peak_fd = -1;
    // The v2 cgroup (for PSI), whatever holds the memory controller.
    if ((have & 2) && strcmp(paths[1], "/") != 0) directory_of(&mounts[1], paths[1], m->v2_dir, sizeof m->v2_dir);
    int version = have & 1 ? 1 : have & 2 ? 2 : 0;
    if (!version) { snprintf(why, why_cap, "no memory cgroup: no cgroup v1 memory hierarchy or cgroup v2 mount"); return -1; }
    const mount_entry *mount = &mounts[version - 1];
    const char *path = paths[version - 1];
    if (directory_of(mount, path, m->dir, sizeof m->dir) != 0) {
        snprintf(why, why_cap, "cgroup %s is not visible under %s", path, mount->point);
        return -1;
    }
    fl_strlcpy(m->path, path, sizeof m->path);
    const char *usage = version == 1 ? "memory.usage_in_bytes" : "memory.current";
    const char *peak = version == 1 ? "memory.max_usage_in_bytes" : "memory.peak";
    const char *limit = version == 1 ? "memory.limit_in_bytes" : "memory.max";
    // The effective limit is the smallest on the way up to the mount point.
    // Read first: without one the caller may want nothing else.
    char dir[PATH_MAX];
    fl_strlcpy(dir, m->dir, sizeof dir);
    size_t point_len = strlen(mount->point);
    while (m->limit_count < FL_MEMCG_MAX_LEVELS) {
        int fd = open_ro(dir, limit);
        if (fd >= 0) m->limit_fds[m->limit_count++] = fd;
        char *slash = strrchr(dir, '/');
        if (!slash || (size_t)(slash - dir) < point_len) break;
        *slash = 0;
    }
    m->version = version;
    if (only_limited && fl_memcg_limit(m) == UINT64_MAX) {
        fl_memcg_close(m);
        return 1;
    }
    m->usage_fd = open_ro(m->dir, usage);
    if (m->usage_fd < 0) {
        snprintf(why, why_cap, "%s/%s cannot be opened (memory controller not enabled here)", m->dir, usage);
        fl_memcg_close(m);
        return -1;
    }
    m->peak_fd = open_ro(m->dir, peak);
    // The first read of each file allocates the kernel's read buffer, charged
    // to this cgroup; made now, it cannot fall on a moment at the limit
    // (a read at the limit makes the kernel OOM-kill the reader).
    fl_memcg_usage(m);
    fl_memcg_peak(m);
    fl_memcg_limit(m);
    return 0;
}

int fl_memcg_open(fl_memcg *m, int only_limited, char *why, int why_cap) {
    // One read of each file finds both versions (the install read each
    // twice), in raw reads (fopen and getline allocate, and the malloc
    // shim records a stack for each block: 0.2 ms). By version - 1; static:
    // 24 KiB the installing thread's stack need not have.
    static mount_entry mounts[2];
    static char paths[2][PATH_MAX];
    char buf[8192];
    cgroup_scan found_mounts = {mounts, paths, 0}, found_paths = {mounts, paths, 0};
    fl_each_line("/proc/self/cgroup", buf, sizeof buf, path_line, &found_paths);
    // The hierarchies where systems mount them, tried before mountinfo,
    // whose text the kernel builds for every mount (a third of this
    // function's time in a process start). A cgroup path not found under
    // them (a container that sees only a bind mount of its own subtree)
    // fails to open there and takes mountinfo's answer.
    int usual = 0;
    if ((found_paths.found & 1) && usual_mount("/sys/fs/cgroup/memory", CGROUP_SUPER_MAGIC, 1, &mounts[0])) usual |= 1;
    if ((found_paths.found & 2) && (usual_mount("/sys/fs/cgroup", CGROUP2_SUPER_MAGIC, 2, &mounts[1]) ||
                                    usual_mount("/sys/fs/cgroup/unified", CGROUP2_SUPER_MAGIC, 2, &mounts[1])))
        usual |= 2;
    if (usual && usual == found_paths.found) {
        int r = open_found(m, mounts, paths, usual, only_limited, why, why_cap);
        if (r >= 0) return r;
    }
    fl_each_line("/proc/self/mountinfo", buf, sizeof buf, mount_line, &found_mounts);
    return open_found(m, mounts, paths, found_mounts.found & found_paths.found, only_limited, why, why_cap);
}
