// victim-leak commands whose threads hold one block deep in their stacks
// and leave the only pointer to another in a frame that has returned
// (dead_frames.c): the leak scan must read a thread's stack from its stack
// pointer up, neither the whole mapping nor the other end.
//   thread-stack-dead-frames      an on-demand check while such a thread waits
//   small-stack-exit-dead-frames  exit(0) from such a thread, made with a
//                                 192 KiB stack (the exit check switches stacks)
#ifndef VICTIM_LEAK_DEAD_FRAMES_H
#define VICTIM_LEAK_DEAD_FRAMES_H

/// A thread holds a 222-byte block 16 KiB down its stack and has left the
/// only pointer to a 111-byte block 64 KiB down, in a dead frame; main runs
/// faultline_leak_check() meanwhile, then frees both (through a copy the
/// scan cannot read). Returns the exit status (2: the shim is not loaded).
int victim_thread_stack_dead_frames(void);

/// The same thread, made with a 192 KiB stack, calls exit(0) while it
/// holds the 222-byte block: the exit check runs on a stack of its own and
/// must find the 111-byte block lost. Returns only on error (2).
int victim_small_stack_exit_dead_frames(void);

#endif
