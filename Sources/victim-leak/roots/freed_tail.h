// victim-leak freed-tail: pointers left in the tail of a freed block.
#ifndef VICTIM_LEAK_FREED_TAIL_H
#define VICTIM_LEAK_FREED_TAIL_H

/// Frees a 16 KiB and a 256 KiB table whose last word holds the only
/// pointer to a 48- and a 56-byte block: past the shim's 4 KiB scribble
/// limit, so only its clearing of a freed block's tail stops those words
/// from keeping the blocks "still reachable". Returns 0.
int victim_freed_tail(void);

#endif
