// Whether a thread blocked in one of an event loop's calls is waiting the
// way an event loop does. poll, select and epoll also serve programs that
// only wait for a child process (Python's subprocess.run with captured
// output polls the child's pipes) or for time (select or poll on no
// descriptor, as a sleep): inferred hang detection must not start watching
// such a program, or the computing it does next reads as a hang.
#ifndef FL_EVENT_WAIT_H
#define FL_EVENT_WAIT_H

#include "hang_probe.h"

/// 1 when `p` shows its thread waiting for events as an event loop does: a
/// poll, select or epoll wait on at least one descriptor that is not a pipe
/// (a socket, terminal, eventfd, timerfd, signalfd, inotify…), or any other
/// event-loop call (pause, sigsuspend, accept, recv…). 0 for a wait on
/// pipes alone or on no descriptor, and for calls that are not an event
/// loop's. 1 when the descriptors cannot be read (the old rule: the call
/// alone). Allocation-free; reads /proc/self/fdinfo for epoll.
int fl_probe_waits_for_events(const fl_thread_probe *p);

#endif
