// Commands of victim-heap that live in files of their own (main.c holds
// the table that names them all).
#ifndef VICTIM_HEAP_H
#define VICTIM_HEAP_H

/// Every allocation entry point glibc exports, each block checked and freed.
int entry_points(void);
/// malloc and free between mtrace() and muntrace().
int mtrace_blocks(void);

/// Every entry point, on main and on a new thread: errno must not change.
int errno_kept(void);
/// A new thread whose first call is pthread_getattr_np on itself.
int getattr_first(void);
/// dlclose on one thread while another is held inside libunwind's lookup of
/// a frame (dlclose_unwinding.c).
int dlclose_while_unwinding(void);
/// dl_iterate_phdr callbacks that allocate, on two threads, while others
/// start threads that allocate (loader_locks.c).
int dl_iterate_callback_alloc(void);
/// A double, an invalid free and a write after free reported without
/// halting: errno must not change.
int errno_after_reports(void);

/// SIGSEGV: a NULL dereference with the scribble's value in a register
/// and a freed block's address on the stack.
int null_deref_with_mask(void);

/// The parent and a forked child each write into a block they freed.
int write_after_free_across_fork(void);

/// SIGSEGV inside free (the page of the block before it made
/// inaccessible), in a program whose SIGSEGV handler calls exit(3).
int exit_in_handler(void);

/// Writes into 20000 freed blocks from one allocation and free site and
/// into 3 from another, then exits: two groups for the exit check.
int write_after_free_many(void);
/// Writes into 4 freed blocks from one allocation site freed at one site
/// and 4 freed at another, then exits: two groups for the exit check.
int write_after_free_free_sites(void);
int write_after_free_far(void);
/// Sample mode, one slot: a use after free of a block on its slot's second
/// turn (guard_slots.c).
int guard_slot_recycled(void);
/// Sample mode, two slots: a use after free of a block whose slot is not
/// handed out again yet (guard_slots.c).
int guard_slot_freed(void);
/// Sample mode: a write in front of a block on its slot's second turn, in
/// the front pattern the first block left (guard_slots.c).
int guard_slot_front_underflow(void);
/// One-byte writes into 64 freed 3000-byte blocks at spread offsets, all
/// found (or not) as the blocks leave the quarantine during the run.
int write_after_free_offsets(void);
/// The same one-byte write after free 1500 bytes into 2000 freed 3000-byte
/// blocks: found at a release sooner or later, whatever the sample.
int write_after_free_same_offset(void);
/// A worker with a pending pthread_cancel frees a block twice.
int double_free_while_cancelled(void);
/// Out of fds, frees a block twice, uses up the fds again, and frees
/// another block twice (run with FAULTLINE_HALT_ON_ERROR=0).
int double_free_out_of_fds_refill(void);
/// Frees 1000 blocks twice each (run with FAULTLINE_HALT_ON_ERROR=0).
int double_free_repeated(void);
/// Loads libVictimDeepbind.so with RTLD_DEEPBIND; frees and reallocates
/// blocks its (glibc-bound) malloc returned.
int deepbind(void);
/// After that load, frees an interior pointer of a program block whose
/// bytes look like a glibc chunk header there.
int deepbind_interior(void);
/// The same 2 MiB into a block grown by realloc to 4 MiB.
int deepbind_interior_deep(void);

/// Grows one buffer by realloc in 4099-byte steps to about 4 MiB, shrinks
/// it in halves, and checks every byte; prints glibc's count of mapped
/// blocks at the largest.
int realloc_growth(void);
/// The same after the program set glibc's mmap threshold itself (mallopt).
int realloc_growth_mallopt(void);
/// prlimit lowers RLIMIT_AS, then 8 MiB blocks (glibc maps them) are
/// allocated and freed; says how many lay where the arena's reservation was.
int prlimit_as(void);
/// The same with the mallopt made from the executable's preinit_array,
/// before any library's constructor (early_mallopt.c).
int realloc_growth_early_mallopt(void);

/// libVictimDeepbind.so (loaded without RTLD_DEEPBIND) frees a global
/// variable: an invalid free whose frame 0 is in that library.
int invalid_free_in_library(void);
/// Frees a block twice while libVictimDeepbind.so's constructor holds the
/// loader's lock on another thread, which then frees one twice itself
/// (suppressed_cases.c).
int double_free_loader_locked(void);

/// Heap overflows and underflows, large blocks (overflows.c).
int heap_overflow_one(void);
int heap_overflow_word(void);
int heap_overflow_memcpy(void);
int heap_overflow_strcpy(void);
int heap_overflow_strndup(void);
int heap_underflow_neighbour(void);
int heap_underflow_header(void);
int heap_underflow_header_wiped_far(void);
int heap_underflow_links(void);
int heap_underflow_links_big(void);
int heap_underflow_header_live(void);
int heap_overflow_jump_4k(void);
int heap_read_past_end_odd(void);
int heap_read_past_end(void);
int use_after_free_int(void);
int use_after_free_large(void);
int double_free_after_large_frees(void);
int heap_underflow_far(void);
int heap_underflow_mbyte(void);
int heap_overflow_mbyte(void);
int heap_overflow_free_slot(void);
int heap_read_past_end_many(void);
int heap_overflow_crash(void);

#endif
