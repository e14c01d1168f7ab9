// The terminate handler and its installation.
#include "env_option.h"
#include "cxx_exception.h"
#include "cxx_exception_info.h"
#include "cxx_throw_hooks.h"
extern "C" {
#include "stack_switch.h"
}

#include <atomic>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

namespace {

// Preallocated: ~80 KB of text for the outer exception and nested ones.
fl_cxx_exception_info g_info;
std::atomic<int> g_reporting{0};
int g_installed;
int g_frames = FL_CXX_THROW_FRAMES_DEFAULT;
int g_demangle = 1;

/// The stack the terminate handler describes and reports on, mapped at
/// install. The terminating thread may have little stack left (deep
/// recursion, a small pthread stack): describing rethrows the exception
/// (the C++ unwinder again) and demangles, and the report takes ~11 KiB
/// more. One report per process (g_reporting), so one stack suffices.
constexpr size_t k_terminate_stack_size = 128 * 1024;
fl_stack g_terminate_stack;

/// Describes the current exception and reports it; runs on
/// g_terminate_stack. The rethrow inside is caught within the describer,
/// so the C++ unwinder never has to walk back across the stack switch.
/// `handler_return` is where terminate_handler returns to in the runtime.
void describe_and_report(void *handler_return) {
    fl_cxx_describe_current(&g_info, g_demangle);
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

void terminate_handler(void) {
    // One report per process: a second thread reaching std::terminate, or a
    // terminate from inside this handler, goes straight to the next handler.
    if (g_reporting.exchange(1) == 0) {
        fl_cxx_hooks_freeze();
        fl_call_on_stack(describe_and_report, __builtin_return_address(0), g_terminate_stack.hi);
    }
    fl_terminate_fn next = fl_cxx_chained_terminate();
    if (next && next != terminate_handler) next();
    abort();  // a terminate handler must not return
}

}  // namespace

extern "C" int fl_cxx_exception_install(void) {
    if (g_installed) return 0;
    g_frames = fl_env_int(FL_OPT_CXX_THROW_FRAMES);
    g_demangle = fl_env_int(FL_OPT_CXX_DEMANGLE);
    if (fl_cxx_report_prepare() != 0) return -1;
    if (!g_terminate_stack.hi && fl_stack_map(&g_terminate_stack, k_terminate_stack_size) != 0) return -1;
    fl_cxx_hooks_enable(g_frames);
    if (fl_cxx_take_terminate(terminate_handler) != 0) {
        errno = ENOSYS;
        return -1;
    }
    g_installed = 1;
    return 0;
}

extern "C" void fl_cxx_exception_uninstall(void) {
    if (!g_installed) return;
    fl_cxx_hooks_stop();
    fl_cxx_give_back_terminate();
    g_installed = 0;
}
