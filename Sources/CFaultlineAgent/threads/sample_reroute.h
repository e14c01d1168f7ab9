// Passes a delivery of the sample signal that one of Faultline's own
// threads took, and that is not the agent's, on to a thread of the
// program's.
//
// Faultline's threads block every signal but the sample signal (they must
// answer the agent's requests), so a SIGRTMIN+8 sent to the process (kill,
// sigqueue, a timer's SIGEV_SIGNAL) that the main thread blocks may be
// given to one of them, where the kernel, without Faultline, would have
// given it to a program thread that lets it in, or left it pending for a
// sigwait. Taking the program's action there ran its handler on a thread
// not its own, and, since the default action is taken too, would have
// ended a program that blocks the signal everywhere to sigwait for it.
#ifndef FL_SAMPLE_REROUTE_H
#define FL_SAMPLE_REROUTE_H

#include <signal.h>

/// On one of Faultline's threads: queues `sig` with `info` again to the
/// first program thread that does not block it (a thread in sigwait lets it
/// in while it waits), else to the main thread, where it stays pending
/// until the program lets it in, and returns 1. On a program's thread,
/// returns 0 and does nothing. The queued copy is sent with
/// rt_tgsigqueueinfo, which takes only a negative si_code from a thread
/// other than the main one: a kill's (SI_USER) or tgkill's (SI_TKILL) is
/// sent as SI_QUEUE, with the sender's pid and uid kept.
/// Async-signal-safe.
int fl_sample_reroute(int sig, const siginfo_t *info);

#endif
