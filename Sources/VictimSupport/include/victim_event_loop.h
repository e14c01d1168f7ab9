// Idling the way an event loop does, for victims under the hang detector.
#ifndef VICTIM_EVENT_LOOP_H
#define VICTIM_EVENT_LOOP_H

/// Waits `ms` for events the way an idle event loop does: poll on an
/// eventfd nothing writes to, as glib's and libuv's loops wait on theirs.
/// Inferred hang mode watches the main thread only once it has seen it
/// waiting like this (a poll on no descriptor is a sleep, which it does not
/// take for a loop). Waits the whole time: the watchdog's sampling signal
/// interrupts poll (EINTR whatever SA_RESTART says), and a cut-short idle
/// let a victim exit before the watchdog saw it responsive.
void victim_idle_like_event_loop(int ms);

#endif
