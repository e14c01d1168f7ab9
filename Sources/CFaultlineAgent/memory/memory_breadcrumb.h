// Breadcrumbs that survive SIGKILL: a small file in the report directory
// (`memory-PID.breadcrumbs`) mapped MAP_SHARED and locked in memory, so what
// the monitor wrote is in the page cache — and readable by the runner —
// even after the OOM killer ends the process. Layout (little-endian), read
// by Sources/Faultline/CGroup/MemoryBreadcrumbs.swift:
//   header (4096 bytes): "FLMEMBC1", u32 version (1), u32 slot size,
//     u32 slot count, u32 pid, u32 last slot + 1, u32 writes
//   slot i at 4096 + i * slot size: u32 state (0 empty, 1 writing,
//     2 complete), u32 JSON length, u32 sequence, u32 reserved, JSON text
#ifndef FL_MEMORY_BREADCRUMB_H
#define FL_MEMORY_BREADCRUMB_H

#include <stddef.h>

/// Bytes per slot (header included): a breadcrumb with a few allocation
/// stacks and the images they point into fits with room to spare.
#define FL_BREADCRUMB_SLOT (32u << 10)
/// Slots: one per threshold.
#define FL_BREADCRUMB_SLOTS 6

/// Creates (truncating) the file for this pid in the report directory,
/// maps and locks it. Idempotent per pid. Returns 0 or -1.
int fl_breadcrumb_open(void);

/// Writes `len` bytes of JSON into slot `slot`, marking it complete last.
/// A JSON text longer than a slot is dropped (returns -1).
int fl_breadcrumb_write(int slot, const char *json, size_t len);

/// Removes this process's file (an exit, _exit or exec: nothing was killed).
/// The mapping stays, and no new file is made for this process after it.
/// Async-signal-safe.
void fl_breadcrumb_remove(void);

/// After an exec that failed: makes the file again with what the removed
/// one held, so the image that goes on keeps its breadcrumbs (before, they
/// were gone and the next one made a new file as usage neared the limit).
/// Does nothing unless fl_breadcrumb_remove ran in this process. Only
/// system calls: async-signal-safe.
void fl_breadcrumb_restore(void);

#endif
