// __cxa_begin_catch, interposed only to see a program's fault handler that
// the agent called (program_handler.h) left by a C++ exception: an
// interpreter's or a JIT's handler that throws, the exception unwinding
// through the signal frame to a catch around the code that faulted. The
// handler never returns then, so without this the agent could not tell the
// program lived on: a thread waiting on the handled fault's report waited
// for a sign that never came, and stderr capture stayed off. A catch is
// where the handler's frames are known to be gone (a throw may still be
// caught inside the handler). Every call is passed on unchanged; outside
// such a handler this costs one thread-local read.
#include "cxx_runtime.h"
#include "interpose_next.h"
#include "program_handler.h"

#include <stdint.h>

/// Notes a catch outside a program's handler, then begins it. Called from
/// the catching frame's landing pad, so this frame lies just below it.
FL_EXPORT void *__cxa_begin_catch(void *exception) {
    fl_program_handler_resuming_at((uintptr_t)__builtin_frame_address(0));
    // Found with the rest of the C++ runtime (the agent links none); a
    // catch before any throw the agent saw finds it here.
    if (__builtin_expect(!fl_cxx_rt.begin_catch, 0) && !fl_cxx_runtime_find())
        fl_cxx_rt.begin_catch = (void *(*)(void *))dlsym(RTLD_NEXT, "__cxa_begin_catch");
    void *(*real)(void *) = (void *(*)(void *))fl_cxx_runtime_or_callers((void *)fl_cxx_rt.begin_catch,
                                                                         __builtin_return_address(0), "__cxa_begin_catch");
    return real(exception);
}
