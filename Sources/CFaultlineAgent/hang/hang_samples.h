// The ring of the watched thread's last stack samples during a suspected
// hang, the culprit stack (the most frequent one) and the call tree of all
// of them. Memory is mapped once at install; nothing here allocates.
#ifndef FL_HANG_SAMPLES_H
#define FL_HANG_SAMPLES_H

#include "hang_options.h"
#include "image_list.h"
#include "json_writer.h"
#include "thread_capture.h"

#include <stdint.h>

/// One sample: the watched thread's stack at one tick.
typedef struct fl_hang_sample {
    uint64_t time_ns;
    /// Frames in `pcs` (innermost first); 0 when the stack is not known yet
    /// (the thread was in a call that a signal would have cut short) or was
    /// lost.
    int n;
    /// 1 while the stack is still to be taken (see fl_sample_ring_resolve).
    int pending;
    /// 1 when the thread had not run since the previous sample, so that
    /// stack was reused instead of interrupting it again.
    int reused;
    /// 1 when the thread walked its frame pointers instead of using
    /// libunwind (it saw another thread inside dl_iterate_phdr;
    /// thread_capture.h): frames of code built without them are missing.
    int by_fp;
    uintptr_t *pcs;
} fl_hang_sample;

/// The last `cap` samples.
typedef struct fl_sample_ring {
    int cap;
    int max_frames;
    int start;
    int count;
    /// Samples pushed since the ring was cleared (the episode's total).
    uint64_t total;
    fl_hang_sample slots[FL_HANG_RING_MAX];
} fl_sample_ring;

/// Maps memory for FL_HANG_RING_MAX samples of FL_MAX_FRAMES frames.
/// Returns 0 or -1. Not async-signal-safe.
int fl_sample_ring_init(fl_sample_ring *r);

/// Empties the ring and sets its capacity (1...FL_HANG_RING_MAX).
void fl_sample_ring_clear(fl_sample_ring *r, int cap, int max_frames);

/// Appends a sample, dropping the oldest when full; returns it so the caller
/// can fill `pcs` and `n`.
fl_hang_sample *fl_sample_ring_push(fl_sample_ring *r, uint64_t time_ns);

/// The most recent sample, or NULL.
fl_hang_sample *fl_sample_ring_last(fl_sample_ring *r);

/// Gives every pending sample the stack `pcs` (when `n` > 0), taken by
/// frame pointers when `by_fp`, or marks it lost (`n` <= 0).
void fl_sample_ring_resolve(fl_sample_ring *r, const uintptr_t *pcs, int n, int by_fp);

/// Samples with a known stack taken by frame pointers.
int fl_sample_ring_by_fp(const fl_sample_ring *r);

/// Samples with a known stack.
int fl_sample_ring_known(const fl_sample_ring *r);

/// The culprit: the most frequent stack, two samples being the same stack
/// when they have the same depth and the same return addresses (frame 0,
/// the interrupted instruction, may differ within one function). Ties go to
/// the most recent. Only stacks that end in the thread's outermost frame
/// (the last return address most samples end in) are candidates: a stack
/// the unwinder cut short cannot win. Returns the representative sample and
/// its count in `count`, or NULL when no sample has a stack.
const fl_hang_sample *fl_sample_ring_culprit(const fl_sample_ring *r, int *count);

/// Writes `"call_tree": [...]`: every sample's stack merged from the
/// outermost frame, in pre-order, each node with its depth, pc, image,
/// offset, `count` (samples through it) and `self` (samples ending in it),
/// and `return_address` where the position would mislead a reader (see the
/// function).
void fl_sample_ring_write_tree(const fl_sample_ring *r, fl_json *w, const fl_image_list *images);

#endif
