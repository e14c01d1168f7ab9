// The fatal-signal crash detector.
#ifndef FL_CRASH_HANDLER_H
#define FL_CRASH_HANDLER_H

#include "faultline.h"
#include "image_list.h"
#include "report_file.h"

/// Preallocates the report buffers and installs handlers for SIGSEGV,
/// SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP and SIGSYS, saving the previous
/// ones. Not async-signal-safe. Returns 0 or -1.
int fl_crash_install(void);

/// Puts back, on every crash signal whose handler is still the agent's, the
/// action the program had before fl_crash_install (SIG_DFL when it set that
/// from its handler since), and stops the sigaction and mask interposers
/// changing the program's calls. Buffers and alternate stacks stay (a
/// thread's sigaltstack is the thread's own to keep; the agent cannot know
/// whether the program relies on it). Not async-signal-safe.
void fl_crash_uninstall(void);

/// Preallocates the report buffers and the stacks reports are written on,
/// without installing signal handlers, so
/// another detector can report through `fl_crash_report_event` while the
/// crash detector is off. Idempotent. Not async-signal-safe. Returns 0 or -1.
int fl_crash_prepare(void);

/// The image list of the report being written (valid inside a section
/// writer passed to `fl_crash_report_event`), for frames of its own.
const fl_image_list *fl_crash_images(void);

/// Sets the user crash callback.
void fl_crash_set_callback(faultline_crash_callback cb, void *ctx);

/// Hook for the malloc shim: returns the length of a JSON object describing
/// the fault (use after free), written into `buf`, or 0.
typedef unsigned long (*fl_fault_describer)(const void *siginfo, const void *ucontext, char *buf, unsigned long cap);

/// Reports a fatal event found by another detector (for example an uncaught
/// C++ exception) through the crash path: the caller writes its own
/// sections with `extra`, the crash detector adds threads and images, and
/// no crash report is written for the SIGABRT this thread raises next (the
/// abort that ends the event); any other fatal signal is still reported.
/// `kind` names the report. The crashed thread's stack is unwound from
/// `ucontext` when given, whose pc `frame0` describes (a context from
/// getcontext() holds a return address: FL_FRAME0_RETURN_ADDRESS), else
/// from inside this call. `first_pc`, when not 0, is the return address
/// into the program from the detector's own outermost frame (its terminate
/// handler's): the stack is reported from that frame on, without the
/// detector's frames inside it. The report is written on the crash
/// detector's own stack, not the caller's, which may have little left.
/// Async-signal-safe.
typedef void (*fl_section_writer)(void *json, void *ctx);
int fl_crash_report_event(const char *kind, fl_section_writer extra, void *ctx, const void *ucontext, fl_frame0 frame0,
                          uintptr_t first_pc);

/// 1 while a crash (or another fatal event) is being reported. The hang
/// watchdog then stands still: the reporting thread is in our handler, not
/// hung in the program, and the handler's own deadline covers a stall.
int fl_crash_in_progress(void);

/// Marks the next SIGABRT raised on the calling thread as already reported
/// (the caller is about to abort()): no second report is written for it.
/// Other signals, and a SIGABRT on another thread, are still reported.
void fl_crash_suppress_next_abort(void);

#endif
