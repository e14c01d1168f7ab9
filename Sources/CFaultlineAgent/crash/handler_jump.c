// The longjmp family, interposed only to see a program's fault handler that
// the agent called (program_handler.h) leave by a jump: a probe's or an
// interpreter's siglongjmp back to where it recovers. Nothing returns from
// such a handler, so without this the agent could not tell the program
// lived on, and stderr capture, given back for the handler, stayed off for
// the rest of the process (later reports had no stderr tail of what came
// after). Every jump is passed on unchanged; outside such a handler this
// costs one thread-local read. Async-signal-safe.
#include "interpose_next.h"
#include "program_handler.h"

#include <setjmp.h>

typedef void (*jump_fn)(struct __jmp_buf_tag *, int);

// _FORTIFY_SOURCE builds call this for longjmp and siglongjmp.
void __longjmp_chk(struct __jmp_buf_tag env[1], int val);

FL_NEXT_VAR(longjmp)
FL_NEXT_VAR(_longjmp)
FL_NEXT_VAR(siglongjmp)
FL_NEXT_VAR(__longjmp_chk)
#define real(name) ((jump_fn)(next_##name ? next_##name : dlsym(RTLD_NEXT, #name)))

/// Notes a jump out of a program's handler, then jumps.
FL_EXPORT void longjmp(jmp_buf env, int val) {
    fl_program_handler_jumping(env);
    real(longjmp)(env, val);
    __builtin_unreachable();
}

/// Notes a jump out of a program's handler, then jumps.
FL_EXPORT void _longjmp(jmp_buf env, int val) {
    fl_program_handler_jumping(env);
    real(_longjmp)(env, val);
    __builtin_unreachable();
}

/// Notes a jump out of a program's handler, then jumps.
FL_EXPORT void siglongjmp(sigjmp_buf env, int val) {
    fl_program_handler_jumping(env);
    real(siglongjmp)(env, val);
    __builtin_unreachable();
}

/// Notes a jump out of a program's handler, then jumps.
FL_EXPORT void __longjmp_chk(struct __jmp_buf_tag env[1], int val) {
    fl_program_handler_jumping(env);
    real(__longjmp_chk)(env, val);
    __builtin_unreachable();
}
