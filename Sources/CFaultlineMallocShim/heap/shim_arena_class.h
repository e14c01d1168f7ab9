// The arena's size classes, shared by shim_arena.c (allocation) and
// shim_arena_scavenge.c (giving free memory back to the kernel). Each class
// owns one region of the reserved range, carved into 64 KiB spans that hold
// whole blocks only, so every block lies in exactly one span.
#ifndef SHIM_ARENA_CLASS_H
#define SHIM_ARENA_CLASS_H

#include "shim_arena.h"

#include <stdint.h>

#define SHIM_SPAN_SHIFT 16
/// Bytes of a span: the unit handed to a class and returned to the kernel.
#define SHIM_SPAN_SIZE (1u << SHIM_SPAN_SHIFT)
/// Spans in one class's region.
#define SHIM_SPANS_PER_REGION ((uint32_t)(SHIM_ARENA_REGION_SIZE >> SHIM_SPAN_SHIFT))

/// One size class. Every field is guarded by `lock`.
typedef struct arena_class {
    _Atomic int lock;
    uint32_t size;             ///< block size
    uint32_t per_span;         ///< whole blocks in a span
    uint32_t reclaimed_count;  ///< spans on `reclaimed`
    uintptr_t next;            ///< next never-used block of the current span
    uintptr_t span_end;        ///< end of the current span's last whole block
    uintptr_t frontier;        ///< first span never handed to this class
    uintptr_t committed;       ///< end of the readable, writable part
    uintptr_t start;           ///< start of the region (it is SHIM_ARENA_REGION_SIZE long)
    void *free;                ///< released blocks, linked through their first word
    uint64_t free_count;       ///< blocks on `free`
    uint64_t rescan_at;        ///< `free_count` at which a scavenge looks here again
    uint32_t *reclaimed;       ///< spans given back to the kernel (indexes), reused first
    char pad[40];
} arena_class;

_Static_assert(sizeof(arena_class) == 128, "two cache lines per class");

/// The classes (shim_arena.c).
extern arena_class shim_arena_classes[SHIM_ARENA_CLASSES];

/// Set when a class took never-used memory: the next refill runs a scavenge.
extern _Atomic int shim_arena_scavenge_wanted;

/// Gives whole free spans of classes with many free blocks back to the
/// kernel (MADV_DONTNEED); they are reused, as zero pages, before the class
/// takes never-used memory. Takes one class lock at a time; returns at once
/// when another thread is scavenging. Allocation-free.
void shim_arena_scavenge(void);
/// fork: the scavenger's own lock (taken last, released first).
void shim_arena_scavenge_lock(void);
void shim_arena_scavenge_unlock(void);

#endif
