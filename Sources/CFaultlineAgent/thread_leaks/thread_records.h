// The threads detector's records: each thread the program creates through
// pthread_create (the agent's wrapper in crash/altstack.c calls in here),
// with its creating stack (stack_store.h), whether it can still be joined
// and whether it has finished (a thread-specific key's destructor, which
// runs however a thread ends: return, pthread_exit, cancellation). A fixed
// table mapped at install; slots are claimed and given back with atomics.
#ifndef FL_THREAD_RECORDS_H
#define FL_THREAD_RECORDS_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

/// Threads followed at once; more are not followed.
#define FL_THREAD_RECORDS 8192

/// Record state bits.
enum { FL_TR_USED = 1, FL_TR_JOINABLE = 2, FL_TR_FINISHED = 4 };

/// One followed thread.
typedef struct fl_thread_record {
    _Atomic unsigned state;
    _Atomic uint32_t stack;
    _Atomic pthread_t thread;
    _Atomic pid_t tid;
    uint64_t created_ns, finished_ns;
    char name[16];
} fl_thread_record;

/// Maps the table, creates the key. Returns 0 or -1. Install time.
int fl_thread_records_init(void);
/// 1 while the detector follows threads.
int fl_thread_leaks_on(void);
/// Stops following (uninstall).
void fl_thread_records_stop(void);
/// In pthread_create before the thread exists: claims a record with the
/// stack from `caller` outwards; -1 when not followed.
int fl_thread_leak_creating(const pthread_attr_t *attr, const void *caller);
/// After the real pthread_create returned `rc`.
void fl_thread_leak_created(int rec, int rc, pthread_t thread);
/// First thing on the new thread.
void fl_thread_leak_started(int rec);
/// The records (FL_THREAD_RECORDS of them) and the highest used + 1.
fl_thread_record *fl_thread_records(int *limit);
/// Followed threads that have not finished.
int fl_thread_records_live(void);
/// After a fork: the child has only the thread that forked.
void fl_thread_records_forget_all(void);

#endif
