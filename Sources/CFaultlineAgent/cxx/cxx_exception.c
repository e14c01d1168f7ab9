// The terminate handler and its installation.
#include "env_option.h"
#include "cxx_describer.h"
#include "cxx_exception.h"
#include "cxx_exception_info.h"
#include "cxx_runtime.h"
#include "cxx_throw_hooks.h"
#include "loader_lock_watch.h"
#include "stack_switch.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <ucontext.h>

// Preallocated: ~80 KB of text for the outer exception and nested ones.
static fl_cxx_exception_info g_info;
static int g_reporting;
static int g_installed;
// Installed while the process had no C++ runtime: the hooks finish the
// install when one arrives (runtime_loaded below).
static int g_waiting;
static pthread_mutex_t g_late_install = PTHREAD_MUTEX_INITIALIZER;
static int g_frames = FL_CXX_THROW_FRAMES_DEFAULT;
static int g_demangle = 1;

/// The stack the terminate handler describes and reports on, mapped at
/// install. The terminating thread may have little stack left (deep
/// recursion, a small pthread stack): describing rethrows the exception
/// (the C++ unwinder again) and demangles, and the report takes ~11 KiB
/// more. One report per process (g_reporting), so one stack suffices.
#define TERMINATE_STACK_SIZE (128 * 1024)
static fl_stack g_terminate_stack;

/// Describes the current exception and reports it; runs on
/// g_terminate_stack. The rethrow inside is caught within the describer,
/// so the C++ unwinder never has to walk back across the stack switch.
/// `handler_return` is where terminate_handler returns to in the runtime.
static void describe_and_report(void *handler_return) {
    fl_cxx_describe(&g_info, g_demangle);
    g_info.frames = g_frames;
    // The terminating thread's stack, from here (not from inside the crash
    // path, whose own frames would come first); the unwinder follows the
    // switch back to the thread's stack (stack_switch.h). The report starts
    // it at the runtime's call of the handler: this function, the switch
    // and the handler are Faultline's, not the program's.
    ucontext_t uc;
    getcontext(&uc);
    fl_cxx_report(&g_info, &uc, (uintptr_t)handler_return);
}

static void terminate_handler(void) {
    // One report per process: a second thread reaching std::terminate, or a
    // terminate from inside this handler, goes straight to the next handler.
    if (__atomic_exchange_n(&g_reporting, 1, __ATOMIC_SEQ_CST) == 0) {
        fl_cxx_hooks_freeze();
        fl_call_on_stack(describe_and_report, __builtin_return_address(0), g_terminate_stack.hi);
    }
    fl_terminate_fn next = fl_cxx_chained_terminate();
    if (next && next != terminate_handler) next();
    abort();  // a terminate handler must not return
}

// The half of the install that needs the runtime's functions.
static int install_in_runtime(void) {
    fl_cxx_describer_load();  // without it, the report names the type only
    fl_cxx_hooks_enable(g_frames);
    if (fl_cxx_take_terminate(terminate_handler) != 0) {
        errno = ENOSYS;
        return -1;
    }
    g_installed = 1;
    return 0;
}

int fl_cxx_exception_install(void) {
    if (g_installed || g_waiting) return 0;
    g_frames = fl_env_int(FL_OPT_CXX_THROW_FRAMES);
    g_demangle = fl_env_int(FL_OPT_CXX_DEMANGLE);
    if (fl_cxx_report_prepare() != 0) return -1;
    if (!g_terminate_stack.hi && fl_stack_map(&g_terminate_stack, TERMINATE_STACK_SIZE) != 0) return -1;
    if (!fl_cxx_runtime_find()) {
        __atomic_store_n(&g_waiting, 1, __ATOMIC_RELEASE);
        return 0;
    }
    return install_in_runtime();
}

int fl_cxx_exception_waits_for_runtime(void) { return __atomic_load_n(&g_waiting, __ATOMIC_ACQUIRE); }

void fl_cxx_exception_runtime_loaded(void) {
    if (!fl_cxx_exception_waits_for_runtime()) return;
    // Loading the describer takes the loader's locks: while another thread
    // sits inside dl_iterate_phdr, wait for a later throw instead.
    if (fl_loader_iteration_elsewhere()) return;
    pthread_mutex_lock(&g_late_install);
    if (g_waiting) {
        __atomic_store_n(&g_waiting, 0, __ATOMIC_RELEASE);
        install_in_runtime();
    }
    pthread_mutex_unlock(&g_late_install);
}

void fl_cxx_exception_uninstall(void) {
    __atomic_store_n(&g_waiting, 0, __ATOMIC_RELEASE);
    if (!g_installed) return;
    fl_cxx_hooks_stop();
    fl_cxx_give_back_terminate();
    g_installed = 0;
}
