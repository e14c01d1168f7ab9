// The stale-frame command of victim-leak (stale_frame.c).
#ifndef VICTIM_LEAK_STALE_FRAME_H
#define VICTIM_LEAK_STALE_FRAME_H

/// Loses an 88-byte block allocated while %rbp points at a frame record
/// whose return address is in the malloc shim's code. Returns 0.
int victim_stale_frame(void);

#endif
