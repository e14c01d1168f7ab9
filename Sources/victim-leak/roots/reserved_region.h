// victim-leak reserved-region: roots the scan must read without making
// them present (a mostly untouched 64 MiB mapping, an untouched private
// file mapping).
#ifndef VICTIM_LEAK_RESERVED_REGION_H
#define VICTIM_LEAK_RESERVED_REGION_H

/// A 64 MiB anonymous mapping touched in one page holds the only pointer
/// to a 555-byte block; a private mapping of pointer-file, never touched,
/// whose file holds the only pointer to a 444-byte block; a 77-byte leak.
/// Runs an on-demand check and prints how many of the mapping's pages were
/// present before and after it. Returns 0, 2 without the shim.
int victim_reserved_region(void);

#endif
