#include "fd_table.h"
#include "fd_pressure.h"
#include "stack_store.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static fl_fd_record *g_table;
static atomic_int g_on;
static atomic_int g_limit;
static atomic_int g_count;
static _Atomic uint64_t g_seq;
// The calling thread is inside a record already (libunwind may open files
// while it unwinds; a signal handler may open one meanwhile).
static __thread int t_busy __attribute__((tls_model("initial-exec")));

// Faultline's own code (the preloaded agent's and the malloc shim's
// executable segments): opens made from there are Faultline's own.
#define MAX_RANGES 8
static uintptr_t g_lo[MAX_RANGES], g_hi[MAX_RANGES];
static int g_ranges;

static int find_own_code(struct dl_phdr_info *info, size_t size, void *unused) {
    (void)size; (void)unused;
    if (!info->dlpi_name || !strstr(info->dlpi_name, "libFaultline")) return 0;
    for (int i = 0; i < info->dlpi_phnum && g_ranges < MAX_RANGES; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        g_lo[g_ranges] = info->dlpi_addr + ph->p_vaddr;
        g_hi[g_ranges] = g_lo[g_ranges] + ph->p_memsz;
        g_ranges++;
    }
    return 0;
}

static int own_code(const void *pc) {
    for (int i = 0; i < g_ranges; i++)
        if ((uintptr_t)pc >= g_lo[i] && (uintptr_t)pc < g_hi[i]) return 1;
    return 0;
}

int fl_fd_table_init(void) {
    if (g_table) { atomic_store(&g_on, 1); return 0; }
    if (fl_stack_store_init() != 0) return -1;
    void *t = mmap(0, sizeof(fl_fd_record) * FL_FDS_MAX, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (t == MAP_FAILED) return -1;
    g_table = t;
    dl_iterate_phdr(find_own_code, 0);
    fl_fd_pressure_init();
    atomic_store(&g_on, 1);
    return 0;
}

void fl_fd_table_stop(void) { atomic_store(&g_on, 0); }

int fl_fd_table_on(void) { return atomic_load_explicit(&g_on, memory_order_relaxed); }

void fl_fd_table_opened(int fd, fl_fd_opener opener, const void *caller) {
    if (fd < 0 || fd >= FL_FDS_MAX || !fl_fd_table_on() || t_busy || own_code(caller)) return;
    t_busy = 1;
    int saved = errno;
    fl_fd_record *r = &g_table[fd];
    uintptr_t pcs[FL_STACK_STORE_FRAMES];
    int n = fl_stack_capture_from(caller, pcs, FL_STACK_STORE_FRAMES);
    struct stat st;
    // fstat by raw call: no interposer of the program's sees our look.
    int known = syscall(SYS_fstat, fd, &st) == 0;
    r->dev = known ? (uint64_t)st.st_dev : 0;
    r->ino = known ? (uint64_t)st.st_ino : 0;
    r->seq = atomic_fetch_add(&g_seq, 1);
    atomic_store(&r->stack, fl_stack_store_put(pcs, n));
    if (atomic_exchange(&r->opener, (uint32_t)opener) == 0) atomic_fetch_add(&g_count, 1);
    int lim = atomic_load(&g_limit);
    while (fd + 1 > lim && !atomic_compare_exchange_weak(&g_limit, &lim, fd + 1)) {}
    fl_fd_pressure_check(fd);
    errno = saved;
    t_busy = 0;
}

void fl_fd_table_closing(int fd) {
    if (fd < 0 || fd >= FL_FDS_MAX || !g_table) return;
    if (atomic_exchange(&g_table[fd].opener, 0) != 0) atomic_fetch_sub(&g_count, 1);
}

void fl_fd_table_closing_range(unsigned lo, unsigned hi) {
    if (!g_table) return;
    unsigned lim = (unsigned)atomic_load(&g_limit);
    for (unsigned fd = lo; fd < lim && fd <= hi; fd++) fl_fd_table_closing((int)fd);
}

const fl_fd_record *fl_fd_table_get(int fd) {
    if (fd < 0 || fd >= FL_FDS_MAX || !g_table || !atomic_load(&g_table[fd].opener)) return 0;
    return &g_table[fd];
}

int fl_fd_table_limit(void) { return atomic_load(&g_limit); }

int fl_fd_table_count(void) { return atomic_load(&g_count); }

void fl_fd_table_forget_all(void) {
    if (!g_table) return;
    int lim = atomic_load(&g_limit);
    for (int fd = 0; fd < lim; fd++) atomic_store(&g_table[fd].opener, 0);
    atomic_store(&g_count, 0);
}

const char *fl_fd_opener_name(uint32_t opener) {
    static const char *const names[] = {
        "?", "open", "openat", "creat", "socket", "socketpair", "accept", "pipe", "dup", "eventfd", "timerfd_create",
        "signalfd", "epoll_create", "inotify_init", "memfd_create", "fopen", "opendir", "popen", "mkstemp", "tmpfile",
        "fcntl", "recvmsg", "syscall", "recvmmsg",
    };
    return opener < sizeof names / sizeof names[0] ? names[opener] : "?";
}
