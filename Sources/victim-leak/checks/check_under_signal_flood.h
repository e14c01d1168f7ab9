// victim-leak check-under-signal-flood: on-demand leak checks while another
// thread keeps a signal pending on main.
#ifndef VICTIM_CHECK_UNDER_SIGNAL_FLOOD_H
#define VICTIM_CHECK_UNDER_SIGNAL_FLOOD_H

/// A thread that blocks the shim's stop signal (so no check waits for it)
/// sends main SIGUSR1 (an empty handler) without pause, and an idle thread
/// gives each check a thread to wait for, while main runs
/// faultline_leak_check() `checks` times. Returns 0 once they all came
/// back, 2 on a setup error.
int victim_check_under_signal_flood(int checks);

#endif
