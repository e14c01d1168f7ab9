// Reports the shim writes itself (double_free, invalid_free,
// alloc_dealloc_mismatch, new_delete_type_mismatch, write_after_free), in the common report schema, through CFaultlineCore's
// writer and atomic commit; plus the one-line notice on stderr and the halt
// that follows when FAULTLINE_HALT_ON_ERROR is on.
#ifndef SHIM_REPORT_H
#define SHIM_REPORT_H

#include "image_list.h"
#include "json_writer.h"
#include "shim_block.h"

#include <stddef.h>
#include <stdint.h>

/// Opens (creating it if needed) FAULTLINE_REPORT_DIR. Install time.
void shim_report_init(void);
/// fork: lock before, unlock after.
void shim_report_lock(void);
void shim_report_unlock(void);
/// 1 when the calling thread holds the report lock (a signal handler that
/// interrupted a report is running on it).
int shim_report_locked_here(void);

/// Each error below is first matched against the suppressions (on the
/// calling thread, no lock held): a suppressed one is counted, not
/// reported, and does not halt.
///
/// Freeing (or reallocating) a block that was already freed; `operation`
/// is "free" or "realloc". The calling thread's stack is the second free.
void shim_report_double_free(const void *p, uint32_t state, const char *operation);
/// Freeing a pointer that is not the start of a live block.
void shim_report_invalid_free(const void *p, const char *operation);
/// Releasing live block `p` with `operation` ("free", "realloc",
/// "operator delete", "operator delete[]") when its alloc_kind wants
/// another (alloc_dealloc_mismatch). The calling thread's stack is the
/// deallocation. Halts like the other heap errors.
void shim_report_alloc_dealloc_mismatch(const void *p, const char *operation);
/// Releasing live block `p`, allocated by the shim's own new with the
/// kind `operation` releases, with a sized delete given another `size`
/// (0: unsized) or an aligned or unaligned delete given another `align`
/// (0: unaligned) than the block was allocated with
/// (new_delete_type_mismatch). The calling thread's stack is the
/// deallocation. Never halts.
void shim_report_new_delete_type_mismatch(const void *p, const char *operation, size_t size, size_t align);
/// A quarantined block whose 0x55 pattern changed; `detection` says when
/// it was seen ("quarantine_release" or "exit_check"). `changed_blocks`:
/// at exit, how many changed blocks share this one's allocation and free
/// stacks, it included (the report stands for them all); 0 for a single
/// block found at release. Returns 0 when FAULTLINE_MAX_HEAP_REPORTS was
/// reached and nothing was written (quietly when `changed_blocks` > 0:
/// the exit check says how many it left out), else 1 (written, or not to
/// be: suppressed, or found inside the shim).
int shim_report_write_after_free(const shim_block *b, size_t offset, size_t length, const char *detection, uint64_t changed_blocks);

/// Takes one of the FAULTLINE_MAX_HEAP_REPORTS report slots: 1 when an
/// error report may be written, 0 when that many were written already;
/// the error is then counted (shim_report_dropped), and the first one
/// dropped says so on stderr unless `quiet`.
int shim_report_slot(int quiet);
/// Errors not reported because FAULTLINE_MAX_HEAP_REPORTS was reached.
uint64_t shim_report_dropped(void);
/// fork, in the child: its own reports count from zero.
void shim_report_after_fork_child(void);

/// Exit checks: a report that would halt the process waits until
/// shim_report_release_halt, which then halts (once).
void shim_report_hold_halt(void);
void shim_report_release_halt(void);

/// Writes `"block"` and the block's stacks. `images` may be NULL.
void shim_write_block(fl_json *w, const shim_block *copy, const void *user, uint32_t state,
                      uint64_t offset, int with_offset, const fl_image_list *images);
/// Name of a block state for reports.
const char *shim_state_name(uint32_t state);

/// Starts a report of `kind` (takes the report lock); NULL when reports are
/// unavailable. `images` receives the image list the frames refer to.
fl_json *shim_report_open(const char *kind, const fl_image_list **images);
/// Adds the common trailer, commits, prints `summary` (one line) and
/// releases the lock. Never halts the process (leak reports).
void shim_report_close(fl_json *w, const char *summary);
/// Writes the frames of depot stack `id` under `key` (nothing for id 0).
void shim_report_stack(fl_json *w, const char *key, uint32_t id);

/// For report kinds written in other files: begins an error report of
/// `kind` about pointer `p` (NULL inside the shim, before start-up, or past
/// FAULTLINE_MAX_HEAP_REPORTS), writes the calling thread as
/// `crashed_thread` (returns its frame count), the image list the frames
/// refer to, and ends it with its one-line `summary` (then halts as
/// FAULTLINE_HALT_ON_ERROR says; `at_exit` flushes stdio first).
fl_json *shim_report_begin_error(const char *kind, const void *p);
int shim_report_thread(fl_json *w);
const fl_image_list *shim_report_images(void);
void shim_report_end_error(fl_json *w, const char *summary, int at_exit);

/// A heap_buffer_overflow of block `b` (a copy of its header at `user`, in
/// `state`): bytes `first` to `last` past its end changed in its `zone`-byte
/// red zone (`now`: the zone's bytes as they are), found at `detected`.
void shim_report_heap_overflow(const shim_block *b, const void *user, uint32_t state, size_t first, size_t last,
                               size_t zone, const unsigned char *now, const char *detected);
/// A heap_buffer_underflow: bytes in front of the block at `user` changed.
/// `region` says where: "header" (its checksum fails: `b` is NULL, nothing
/// of it is trusted), "live_link" (the leak list's links; `b` is whole) or
/// "red_zone" (the end of the block before's red zone: `before` is a copy of
/// that block's header, `before_user` the block, `distance` how far in front of `user` the first changed byte is,
/// `length` how many). `b`, when whole, gives the block's size and stacks.
void shim_report_heap_underflow(const shim_block *b, const void *user, uint32_t state, const char *region,
                                size_t distance, size_t length, const shim_block *before, const void *before_user,
                                const char *detected);

#endif
