// Suppressions (FAULTLINE_SUPPRESSIONS): one file of `KIND:PATTERN` lines
// for every error the shim reports (read by shim_suppress.c with the parser
// `faultline exec` checks the file with: suppressions_parse.h), matched against the
// function names (shim_symbolize.c, shim_demangle.c) and image paths of a
// report's stacks in process, at detection time (shim_suppress_error.c).
// docs/malloc-shim.md, "Suppressions", describes what a user sees.
#ifndef SHIM_SUPPRESS_H
#define SHIM_SUPPRESS_H

#include "suppressions_parse.h"

#include <stddef.h>
#include <stdint.h>

/// Reads the suppressions file (one line on stderr per bad line, which is
/// ignored; an unreadable file is one line and suppresses nothing).
/// Install time.
void shim_suppress_load(const char *path);
/// 1 when at least one suppression names `kind` (a load and a compare).
int shim_suppress_wanted(fl_supp_kind kind);
/// Index of the first suppression of `kind` that one of the frames
/// matches, or -1. Symbolizes and demangles (calls malloc): never from a
/// signal handler, nor with a lock held that the allocator takes.
int shim_suppress_match(fl_supp_kind kind, const uintptr_t *pcs, int n);
/// Number of suppressions, and suppression `i`'s kind and pattern.
int shim_suppress_count(void);
fl_supp_kind shim_suppress_kind_of(int i);
const char *shim_suppress_pattern(int i);

/// A heap error of `kind` about to be reported: 1 when a suppression of
/// that kind matches a frame of the calling thread's stack (when
/// `current`) or of depot stacks `alloc_stack`, `free_stack` (0: none);
/// the error is then counted for that suppression and must be neither
/// reported nor halt the process. Free when no suppression names `kind`.
int shim_suppress_error(fl_supp_kind kind, int current, uint32_t alloc_stack, uint32_t free_stack);
/// Counts one heap error suppressed by suppression `i`.
void shim_suppress_count_hit(int i);
/// Heap errors suppression `i` has suppressed in this process.
uint64_t shim_suppress_hits(int i);
/// fork, in the child: its own errors count from zero, and the symbol
/// cache's lock is free again.
void shim_suppress_after_fork_child(void);

/// Function name (or "") and image path (or "") for `pc` (a return
/// address); `base`, when not NULL, receives the image's load address (0
/// when none holds `pc`).
void shim_symbolize(uintptr_t pc, const char **function, const char **image, uintptr_t *base);
/// fork, in the child: the symbol cache's lock is free again.
void shim_symbolize_after_fork_child(void);

/// `name` demangled into `out` (C++ or Swift, when the program has loaded
/// that runtime), or NULL when it is not mangled or cannot be demangled.
/// Calls malloc: never from a signal handler.
const char *shim_demangle(const char *name, char *out, size_t cap);

#endif
