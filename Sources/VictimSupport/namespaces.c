#include "victim_namespaces.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int g_holder[2];  // the helper holds its namespaces until [1] closes

// The helper process: its copy of the write end would keep the pipe open.
static int helper_main(void *unused) {
    close(g_holder[1]);
    char c;
    while (read(g_holder[0], &c, 1) > 0) {}
    return 0;
}

static pthread_barrier_t g_worker_named;

static void *idle_worker(void *unused) {
    pthread_setname_np(pthread_self(), "prog-worker");
    pthread_barrier_wait(&g_worker_named);
    for (;;) pause();
    return unused;
}

static int step(const char *what, int rc) {
    fprintf(stderr, "victim: %s: %s\n", what, rc == 0 ? "ok" : strerror(errno));
    return rc != 0;
}

static int write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    int ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);
    if (fd >= 0) close(fd);
    return ok ? 0 : -1;
}

static int enter(pid_t pid, const char *ns, int nstype) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/%s", (int)pid, ns);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = setns(fd, nstype);
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

static void ns_of(const char *task, const char *ns, char *out, size_t cap) {
    char path[300];
    snprintf(path, sizeof path, "/proc/self/task/%s/ns/%s", task, ns);
    ssize_t n = readlink(path, out, cap - 1);
    out[n > 0 ? n : 0] = 0;
}

// The name /proc gives thread `task` ("?" when it cannot be read).
static void name_of(const char *task, char *name, size_t cap) {
    char path[300];
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", task);
    snprintf(name, cap, "?");
    FILE *f = fopen(path, "r");
    if (f && fgets(name, (int)cap, f)) name[strcspn(name, "\n")] = 0;
    if (f) fclose(f);
}

// 1 when no thread but main still has main's name. Faultline's threads
// name themselves as they first run, and whoever starts them (again, after
// a namespace step) does not wait for that.
static int all_named(const char *main_task) {
    char main_name[32], name[32];
    name_of(main_task, main_name, sizeof main_name);
    int named = 1;
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, main_task)) continue;
        name_of(e->d_name, name, sizeof name);
        if (!strcmp(name, main_name)) named = 0;
    }
    if (d) closedir(d);
    return named;
}

// One line per thread: in main's user and mount namespaces or not.
static void report_threads(void) {
    char main_user[64], main_mnt[64], task[16];
    snprintf(task, sizeof task, "%d", (int)getpid());
    for (int i = 0; i < 1000 && !all_named(task); i++) usleep(1000);  // at most a second
    ns_of(task, "user", main_user, sizeof main_user);
    ns_of(task, "mnt", main_mnt, sizeof main_mnt);
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, task)) continue;
        char name[32], user[64], mnt[64];
        name_of(e->d_name, name, sizeof name);
        ns_of(e->d_name, "user", user, sizeof user);
        ns_of(e->d_name, "mnt", mnt, sizeof mnt);
        int same = !strcmp(user, main_user) && !strcmp(mnt, main_mnt);
        fprintf(stderr, "victim: thread %s: %s\n", name, same ? "in main's user and mount namespaces" : "in other namespaces");
    }
    if (d) closedir(d);
}

int victim_enter_namespaces(int worker) {
    if (worker) {
        pthread_t t;
        pthread_barrier_init(&g_worker_named, 0, 2);
        pthread_create(&t, 0, idle_worker, 0);
        pthread_barrier_wait(&g_worker_named);
    }
    // The helper is a new process from the start (clone), so no thread of
    // any kind is in its way.
    static char stack[64 << 10];
    if (pipe2(g_holder, O_CLOEXEC) != 0) { perror("victim: pipe2"); return 1; }
    pid_t helper = clone(helper_main, stack + sizeof stack, CLONE_NEWUSER | CLONE_NEWNS | SIGCHLD, 0);
    if (helper < 0) { perror("victim: clone"); return 1; }
    close(g_holder[0]);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/uid_map", (int)helper);
    int failed = write_file(path, "0 0 1\n") != 0;
    snprintf(path, sizeof path, "/proc/%d/gid_map", (int)helper);
    failed |= write_file(path, "0 0 1\n") != 0;
    if (failed) perror("victim: mapping root in the helper's user namespace");
    // nsenter's order: the mount namespace while still root outside, then
    // the user namespace (nstype 0: the type is the fd's).
    failed += step("setns into a mount namespace", enter(helper, "mnt", CLONE_NEWNS));
    failed += step("setns into a user namespace", enter(helper, "user", 0));
    failed += step("unshare(CLONE_NEWUSER)", unshare(CLONE_NEWUSER));
    int rc = unshare(CLONE_NEWTIME);
    if (rc == 0) rc = enter(getpid(), "time_for_children", CLONE_NEWTIME);
    failed += step("setns into a time namespace", rc);
    close(g_holder[1]);
    waitpid(helper, 0, 0);
    report_threads();
    return failed;
}
