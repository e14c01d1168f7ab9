// The sections of a `cxx_exception` report: `exception` (type, message or
// value, nesting, rethrow) and the throw-site stacks. Written on the crash
// path from what the terminate handler gathered; async-signal-safe.
#include "crash_handler.h"
#include "cxx_exception_info.h"
#include "report_file.h"
#include "stderr_capture.h"

#include <unistd.h>

static void write_level_text(fl_json *w, const fl_cxx_exception_level *L) {
    if (L->foreign) {
        fl_json_bool(w, "foreign", 1);
        return;
    }
    fl_json_string(w, "type", L->type);
    fl_json_string(w, "type_mangled", L->type_mangled);
    if (L->has_message) {
        fl_json_string_n(w, "message", L->message, L->message_len);
        if (L->message_truncated) fl_json_bool(w, "message_truncated", 1);
    }
    if (L->has_value) {
        fl_json_string_n(w, "value", L->value, L->value_len);
        if (L->value_truncated) fl_json_bool(w, "value_truncated", 1);
    }
}

// Taken by the throw hooks calling the unwinder: frame 0 (inside the hook)
// is a return address like the rest.
static void write_stack(fl_json *w, const char *key, const fl_cxx_throw_record *rec) {
    fl_report_frames(w, key, rec->pcs, rec->count, FL_FRAME0_RETURN_ADDRESS, fl_crash_images());
}

// Where a level was thrown: on which thread, and the stack.
static void write_throw_site(fl_json *w, const fl_cxx_exception_level *L) {
    fl_json_bool(w, "throw_stack_found", L->has_thrown);
    if (L->has_thrown) fl_json_int(w, "throw_tid", L->thrown.tid);
}

static void write_sections(void *json, void *ctx) {
    fl_json *w = (fl_json *)json;
    const fl_cxx_exception_info *info = (const fl_cxx_exception_info *)ctx;
    const fl_cxx_exception_level *outer = info->levels > 0 ? &info->level[0] : 0;

    fl_json_begin_object(w, "exception");
    fl_json_bool(w, "no_active_exception", !info->active);
    if (outer) {
        write_level_text(w, outer);
        fl_json_bool(w, "rethrown", outer->has_rethrown || (outer->has_thrown && outer->thrown.rethrown > 0));
        write_throw_site(w, outer);
        if (info->levels > 1 || info->nested_truncated) {
            fl_json_begin_array(w, "nested");
            for (int i = 1; i < info->levels; i++) {
                const fl_cxx_exception_level *L = &info->level[i];
                fl_json_begin_object(w, 0);
                write_level_text(w, L);
                write_throw_site(w, L);
                if (L->has_thrown) write_stack(w, "throw_stack", &L->thrown);
                fl_json_end_object(w);
            }
            fl_json_end_array(w);
            if (info->nested_truncated) fl_json_bool(w, "nested_truncated", 1);
        }
    }
    fl_json_bool(w, "demangled", info->demangled);
    // The unwinder of the stack below; without one, the one a throw takes.
    fl_json_string(w, "throw_unwinder", outer && outer->has_thrown ? fl_cxx_unwinder_name(outer->thrown.unwinder)
                                                                   : fl_cxx_hooks_unwinder());
    fl_json_int(w, "throw_frames", info->frames);
    fl_json_end_object(w);

    if (outer && outer->has_thrown) write_stack(w, "throw_stack", &outer->thrown);
    if (outer && outer->has_rethrown) write_stack(w, "rethrow_stack", &outer->rethrown);
}

int fl_cxx_report_prepare(void) { return fl_crash_prepare(); }

int fl_cxx_report(const fl_cxx_exception_info *info, const void *ucontext, uintptr_t handler_return) {
    // The terminate handler's getcontext(): its pc is the return address of
    // that call.
    return fl_crash_report_event("cxx_exception", write_sections, (void *)info, ucontext, FL_FRAME0_RETURN_ADDRESS,
                                 handler_return);
}
