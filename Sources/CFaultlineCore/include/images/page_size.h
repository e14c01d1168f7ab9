// The system's page size, read once when the library is loaded. Guard pages,
// stack mappings and ELF segment arithmetic use it instead of assuming 4 KiB:
// aarch64 kernels are often built with 16 or 64 KiB pages.
#ifndef FL_PAGE_SIZE_H
#define FL_PAGE_SIZE_H

#include <stddef.h>

/// The page size in bytes (AT_PAGESZ from the auxiliary vector), cached by a
/// constructor when the library loads, so callers on the fault path read a
/// variable and call nothing. Async-signal-safe.
size_t fl_page_size(void);

/// Rounds `n` up to a whole number of pages.
size_t fl_page_round_up(size_t n);

#endif
