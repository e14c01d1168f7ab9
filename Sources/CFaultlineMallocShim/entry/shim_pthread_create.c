// pthread_create, passed on: the leak helper starts before the program's
// first thread (shim_leak_thread_coming), so that a process that never has
// one pays for no thread of the shim's.
#include "interpose_next.h"
#include "shim_leak.h"

#include <errno.h>
#include <pthread.h>

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

/// pthread_create(3): starts the leak helper first when it waits for a
/// first thread, then creates the thread through the next definition
/// (the agent's wrapper or glibc's).
FL_EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg) {
    static create_fn next;
    FL_NEXT_SLOT(next, "pthread_create")
    if (!next) next = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
    if (!next) return EAGAIN;
    shim_leak_thread_coming();
    return next(thread, attr, start, arg);
}
