#include "deadlock_futex.h"
#include "own_memory.h"
#include "sigsafe.h"

#include <linux/futex.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef FUTEX_LOCK_PI2
#define FUTEX_LOCK_PI2 13
#endif

/// glibc's `struct __pthread_mutex_s` prefix (x86_64 and aarch64 alike).
struct glibc_mutex_head {
    int lock;
    unsigned count;
    int owner;
    unsigned nusers;
    int kind;
};

// Mutex kind bits glibc may set besides the type (PTHREAD_MUTEX_KIND_MASK_NP
// is 3): robust (16), PI (32), PP (64), elision (256, 512).
#define MUTEX_TYPE_MASK 3
#define MUTEX_KNOWN_FLAGS (16 | 32 | 64 | 256 | 512)

/// glibc's `struct __pthread_rwlock_arch_t` (the same offsets on x86_64 and
/// aarch64): readers wait on `wrphase_futex`, writers on `writers_futex`.
struct glibc_rwlock {
    unsigned readers;        // phase and lock bits, then the reader count
    unsigned writers;
    unsigned wrphase_futex;
    unsigned writers_futex;
    unsigned pad3, pad4;
    int cur_writer;          // tid of the thread holding it for writing, else 0
    int shared;              // 0 private, 1 process-shared
    unsigned long pad1, pad2;
    unsigned flags;          // PTHREAD_RWLOCK_PREFER_*: 0, 1 or 2
};

// glibc's rwlock bits (nptl/pthread_rwlock_common.c).
#define RWLOCK_WRPHASE 1u
#define RWLOCK_WRLOCKED 2u
#define RWLOCK_FUTEX_USED 2u


static void set_owner(fl_wait_edge *e, pid_t owner) {
    e->owner = owner;
    e->owner_alive = fl_thread_alive(owner);
}

// A wait on an rwlock's futex word while a writer holds the lock: glibc
// sets FUTEX_USED beside the word's phase bit and waits for 1 | FUTEX_USED
// (a value of 2 alone is a writer waiting for readers to leave, and looks
// like a mutex's __lll_lock_wait). `offset` is where the word sits
// in the lock; the rest of the lock must look like one held for writing by
// a live thread of ours, so a condition variable or semaphore whose word
// happens to hold such a value is not taken for one.
static pid_t rwlock_writer(uintptr_t addr, size_t offset, unsigned val) {
    struct glibc_rwlock rw;
    if (addr < offset || fl_read_own_memory(addr - offset, &rw, sizeof rw) != 0) return 0;
    unsigned word = offset == offsetof(struct glibc_rwlock, wrphase_futex) ? rw.wrphase_futex : rw.writers_futex;
    if (!(word & RWLOCK_FUTEX_USED) || (word & ~(RWLOCK_FUTEX_USED | 1u)) || val != (RWLOCK_FUTEX_USED | 1u)) return 0;
    if (rw.flags > 2 || (rw.shared != 0 && rw.shared != 1)) return 0;
    if ((rw.readers & (RWLOCK_WRPHASE | RWLOCK_WRLOCKED)) != (RWLOCK_WRPHASE | RWLOCK_WRLOCKED)) return 0;
    return rw.cur_writer > 0 && fl_thread_alive(rw.cur_writer) ? rw.cur_writer : 0;
}

fl_edge_kind fl_futex_edge(const fl_thread_probe *p, fl_wait_edge *e) {
    e->kind = FL_EDGE_NONE;
    e->addr = 0;
    e->owner = 0;
    e->owner_alive = 0;
    e->timed = 0;
    e->mutex_type = -1;
    if (p->running || p->nr != SYS_futex) return FL_EDGE_NONE;
    uintptr_t addr = (uintptr_t)p->args[0];
    int op = (int)p->args[1];
    int cmd = op & FUTEX_CMD_MASK;
    unsigned val = (unsigned)p->args[2];
    e->addr = addr;
    e->kind = FL_EDGE_FUTEX;
    e->timed = p->args[3] != 0;
    if (cmd == FUTEX_LOCK_PI || cmd == FUTEX_LOCK_PI2) {
        unsigned word;
        if (fl_read_own_memory(addr, &word, sizeof word) == 0 && (word & FUTEX_TID_MASK)) {
            e->kind = FL_EDGE_PI_MUTEX;
            set_owner(e, (pid_t)(word & FUTEX_TID_MASK));
        }
        return e->kind;
    }
    if ((cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET) && val == 2) {
        // __lll_lock_wait: futex_wait(&mutex->__data.__lock, 2, private).
        struct glibc_mutex_head m;
        if (fl_read_own_memory(addr, &m, sizeof m) == 0 && m.lock != 0 &&
            (m.kind & ~(MUTEX_TYPE_MASK | MUTEX_KNOWN_FLAGS)) == 0) {
            pid_t owner = m.owner > 0 ? m.owner : 0;
            // Robust mutexes keep the owner in the lock word too.
            if (!owner && (m.kind & 16)) owner = (pid_t)((unsigned)m.lock & FUTEX_TID_MASK);
            if (owner > 0) {
                e->kind = FL_EDGE_MUTEX;
                e->mutex_type = m.kind & MUTEX_TYPE_MASK;
                set_owner(e, owner);
            }
        }
        return e->kind;
    }
    if ((cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET) && val == (RWLOCK_FUTEX_USED | 1u)) {
        pid_t writer = rwlock_writer(addr, offsetof(struct glibc_rwlock, wrphase_futex), val);
        size_t base = offsetof(struct glibc_rwlock, wrphase_futex);
        if (!writer) {
            writer = rwlock_writer(addr, offsetof(struct glibc_rwlock, writers_futex), val);
            base = offsetof(struct glibc_rwlock, writers_futex);
        }
        if (writer) {
            e->kind = FL_EDGE_RWLOCK;
            e->addr = addr - base;
            set_owner(e, writer);
        }
        return e->kind;
    }
    if (cmd == FUTEX_WAIT_BITSET && !(op & FUTEX_PRIVATE_FLAG) && val > 0 && (pid_t)val != p->tid) {
        // pthread_join waits, process-shared, on the joined thread's `tid`
        // field while it still holds that thread's tid.
        unsigned word;
        if (fl_read_own_memory(addr, &word, sizeof word) == 0 && word == val && fl_thread_alive((pid_t)val)) {
            e->kind = FL_EDGE_JOIN;
            set_owner(e, (pid_t)val);
        }
    }
    return e->kind;
}

const char *fl_edge_kind_name(fl_edge_kind k) {
    switch (k) {
    case FL_EDGE_NONE: return "none";
    case FL_EDGE_MUTEX: return "mutex";
    case FL_EDGE_PI_MUTEX: return "pi_mutex";
    case FL_EDGE_JOIN: return "join";
    case FL_EDGE_RWLOCK: return "rwlock";
    case FL_EDGE_FUTEX: return "futex";
    }
    return "none";
}

const char *fl_mutex_type_name(int type) {
    static const char *names[] = {"normal", "recursive", "errorcheck", "adaptive"};
    return type >= 0 && type < 4 ? names[type] : 0;
}
