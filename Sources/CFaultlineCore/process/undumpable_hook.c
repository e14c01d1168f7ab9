#include "undumpable_hook.h"

#include <errno.h>
#include <stdatomic.h>

static void (*_Atomic g_hook)(void);

void fl_undumpable_hook_set(void (*hook)(void)) { atomic_store(&g_hook, hook); }

void fl_undumpable_coming(void) {
    void (*hook)(void) = atomic_load(&g_hook);
    if (!hook) return;
    int saved = errno;
    hook();
    errno = saved;
}
