// The no-frame-pointer command of victim-leak (no_frame_pointer.c).
#ifndef VICTIM_LEAK_NO_FRAME_POINTER_H
#define VICTIM_LEAK_NO_FRAME_POINTER_H

/// Loses a 72-byte block allocated by a function built as code without
/// frame pointers is (%rbp holds a plain number across its malloc call),
/// called from lose_through_no_frame_pointer. Returns 0.
int victim_no_frame_pointer(void);

#endif
