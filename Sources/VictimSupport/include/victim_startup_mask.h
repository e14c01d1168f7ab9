// A thread held where glibc has every new thread for its first
// instructions: all signals blocked, glibc's own SIGCANCEL and SIGSETXID
// (32, 33) too, which pthread_sigmask never lets a program block.
#ifndef VICTIM_STARTUP_MASK_H
#define VICTIM_STARTUP_MASK_H

#ifdef __cplusplus
extern "C" {
#endif

/// Blocks every signal by raw system call (as glibc does), sets `*masked`
/// (may be NULL) to 1, and waits in 1 ms polls until signal `sig` is
/// pending for this thread, or `max_ms` pass; then stays masked `asleep_ms`
/// more asleep and `running_ms` more spinning (a start-up the scheduler
/// stretched), and restores the mask it found, which lets the pending
/// signal in (saying so on stderr first). Returns 1 when `sig` came, else 0.
int victim_hold_startup_mask(int sig, int max_ms, int asleep_ms, int running_ms, volatile int *masked);

/// The same, spinning rather than polling until `sig` is pending (a
/// thread that stays busy, as a hung main thread does), and restoring the
/// mask at once when it is.
int victim_spin_in_startup_mask(int sig, int max_ms);

/// A thread for victim_start_held_threads: its name, and how long it stays
/// masked once the request is pending (victim_hold_startup_mask).
typedef struct victim_held_thread {
    const char *name;
    int asleep_ms, running_ms;
    int max_ms;           ///< set by victim_start_held_threads
    volatile int masked;  ///< 1 once the thread holds the mask
} victim_held_thread;

/// Starts a thread per entry of `held` (`n` of them), each named and held
/// in the start-up mask until signal SIGRTMIN + 8 is pending for it or
/// `max_ms` pass, then paused for good; returns once every one holds the
/// mask. Their start routine is `held_thread`.
void victim_start_held_threads(victim_held_thread *held, int n, int max_ms);

/// Starts thread 'lasting-blocker', which blocks every signal for good
/// with pthread_sigmask (so not 32 and 33), as libdispatch's workers do,
/// and returns once it has.
void victim_start_lasting_blocker(void);

#ifdef __cplusplus
}
#endif
#endif
