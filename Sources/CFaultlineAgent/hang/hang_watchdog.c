#include "crash_signals.h"
#include "fl_options.h"
#include "tool_log.h"
#include "hang_watchdog.h"
#include "launch_clock.h"
#include "event_wait.h"
#include "altstack.h"
#include "cred_mirror.h"
#include "faultline_hang.h"
#include "agent_config.h"
#include "crash_handler.h"
#include "deadlock_graph.h"
#include "hang_options.h"
#include "hang_probe.h"
#include "hang_report.h"
#include "hang_samples.h"
#include "sched_wait.h"
#include "sigsafe.h"
#include "solo_call.h"
#include "thread_count.h"
#include "stderr_capture.h"
#include "thread_capture.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { MODE_OFF, MODE_INFERRED, MODE_HEARTBEAT, MODE_PING };
static const char *const k_mode_names[] = {"off", "inferred", "heartbeat", "ping"};

/// A tick that comes this much later than planned means the watchdog itself
/// did not run (the process was stopped, the machine suspended, or starved):
/// whatever did not happen meanwhile is nobody's hang.
#define FL_RESUME_GAP_NS (250ull * 1000000ull)
/// Separate waits for events (inferred mode) before main counts as an event
/// loop: a loop waits again and again, a test waits once.
#define FL_EVENT_LOOP_WAITS 3
/// How long a thread must wait for a mutex it holds itself before that is
/// a deadlock: another thread may unlock a normal mutex (glibc lets it;
/// tests use one as a binary semaphore, as LeakSanitizer's libdl_deadlock
/// does), and was reported and aborted 32 ms into such a wait.
#define FL_SELF_CYCLE_NS 1000000000ull
/// How long the exiting thread waits for the watchdog's last report.
#define FL_EXIT_WAIT_NS (1000ull * 1000000ull)
/// Ticks wake up a little late by varying amounts; a threshold that falls
/// within this much of a tick counts as passed at that tick rather than a
/// whole interval later.
#define FL_TICK_SLACK_NS (5ull * 1000000ull)

// --- shared with the program's threads ---------------------------------------

static _Atomic uint64_t g_hb_ns;         // last heartbeat (CLOCK_MONOTONIC)
static atomic_int g_hb_tid;              // the thread that sent it
static __thread pid_t t_tid __attribute__((tls_model("initial-exec")));
static _Atomic(faultline_hang_pinger) g_pinger;
static _Atomic(void *) g_pinger_ctx;

static atomic_int g_running;
static atomic_uint g_wake;               // futex word: bumped to wake the watchdog
static atomic_int g_exit_state;          // 0 running, 1 exit requested, 2 watchdog done
static atomic_int g_uninstalling;        // the exit request is faultline_uninstall's
// 1 while the watchdog is past its wait (a tick under way) or follows a hang
// episode, which it must end at exit; 0 while it only waits for its next
// tick, when at_exit need not wake it. Paired with g_exit_state, both
// sequentially consistent: each side stores its own, then reads the other's.
static atomic_int g_watchdog_busy;
static atomic_int g_exit_tid;
static pid_t g_main_tid;
static pthread_t g_thread;
static char g_error[256];
static int g_debug;  // FAULTLINE_HANG_DEBUG=1: one line per examined tick on stderr

static atomic_int s_mode;
static _Atomic uint64_t s_ticks, s_probes, s_probe_ns, s_samples, s_sample_ns, s_sample_max, s_reused, s_pings;
static _Atomic uint64_t s_hang, s_recovered, s_deadlock, s_last_detection_ms, s_last_report_ns;
static _Atomic uint64_t s_cpu_before_restart;  // CPU time of watchdog threads a solo call ended

// --- the watchdog's own state (only the watchdog thread touches it) ----------

typedef struct watch_state {
    uint64_t last_alive_ns;     // last sign of life
    uint64_t resume_ns;         // last time the watchdog found it had not run
    uint64_t prev_tick_ns;
    uint64_t prev_tick_end_ns;  // when the previous tick's work (a report, say) was done
    int stopped_in_tick;        // the watchdog was stopped during that work (take_sample)
    uint64_t ping_sent_ns;      // outstanding ping, 0 none
    // Baseline for "did the thread run since the previous probe".
    fl_thread_probe last_probe;
    int have_last_probe;
    int signals_since_probe;    // directed signals sent to it since (each wakes it once)
    uint64_t block_since_ns;    // start of the current unchanged block
    int block_stack_known;      // a real sample was taken during that block
    // The current episode (the thread not responsive).
    int active;
    uint64_t bad_since_ns;      // first moment seen unresponsive
    int reported;
    int deadlock_reported;
    int event_loop_seen;        // inferred mode: main waits for events in a loop (armed)
    int event_waits;            // separate event waits seen since it last stopped counting as a loop
    int in_event_wait;          // the last tick found it in one
    uint64_t last_event_wait_ns;
    int traced;                 // under a debugger: no sampling, no reports
    int traced_noted;           // and the user was told once
    pid_t unreadable_noted;     // told once that this thread's syscall file cannot be read
    fl_hang_episode ep;
} watch_state;

static fl_sample_ring g_ring;
static fl_wait_chain g_chains[2];
static int g_chain_cur;
static int g_have_prev_cycle;

// --- program-facing API -----------------------------------------------------

/// First heartbeat of a thread: remember its tid and let the sample signal
/// in. libdispatch's worker threads (which run the main queue under
/// dispatchMain) block every signal; unblocking this one real-time signal,
/// which only the agent sends to the thread, lets the watchdog take
/// their stacks without changing where process signals go.
static pid_t first_heartbeat(void) {
    int sig = fl_threads_signal();
    if (!sig) return fl_gettid();  // before install: try again next time
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, 0);
    return t_tid = fl_gettid();
}

void faultline_heartbeat(void) {
    pid_t tid = t_tid;
    if (!tid) tid = first_heartbeat();
    atomic_store_explicit(&g_hb_tid, tid, memory_order_relaxed);
    atomic_store_explicit(&g_hb_ns, fl_monotonic_ns(), memory_order_release);
}

int faultline_hang_set_pinger(faultline_hang_pinger pinger, void *context) {
    if (!atomic_load(&g_running)) {
        snprintf(g_error, sizeof g_error, "the hang detector is not running: install the agent with 'hang' in FAULTLINE_DETECTORS (or unset)");
        return -1;
    }
    atomic_store(&g_pinger_ctx, context);
    atomic_store(&g_pinger, pinger);
    return 0;
}

int faultline_hang_configure(const faultline_hang_options *o) {
    if (!o) return 0;
    char err[200];
    if (fl_hang_options_apply(o->threshold_ms, o->sample_interval_ms, o->deadlock_threshold_ms, o->deadlock_abort,
                              err, sizeof err) != 0) {
        snprintf(g_error, sizeof g_error, "faultline_hang_configure: %s", err);
        return -1;
    }
    return 0;
}

const char *faultline_hang_last_error(void) { return g_error; }

int fl_hang_running(void) { return atomic_load(&g_running); }

uint64_t fl_hang_last_report_ns(void) { return atomic_load(&s_last_report_ns); }

void faultline_hang_get_stats(faultline_hang_stats *out) {
    memset(out, 0, sizeof *out);
    if (!atomic_load(&g_running)) return;
    out->mode = atomic_load(&s_mode);
    out->ticks = atomic_load(&s_ticks);
    out->probes = atomic_load(&s_probes);
    out->probe_ns = atomic_load(&s_probe_ns);
    out->samples = atomic_load(&s_samples);
    out->sample_ns = atomic_load(&s_sample_ns);
    out->sample_max_ns = atomic_load(&s_sample_max);
    out->samples_reused = atomic_load(&s_reused);
    out->pings = atomic_load(&s_pings);
    clockid_t cid;
    struct timespec ts;
    out->watchdog_cpu_ns = atomic_load(&s_cpu_before_restart);
    if (pthread_getcpuclockid(g_thread, &cid) == 0 && clock_gettime(cid, &ts) == 0)
        out->watchdog_cpu_ns += (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    out->hang_reports = atomic_load(&s_hang);
    out->recovered_reports = atomic_load(&s_recovered);
    out->deadlock_reports = atomic_load(&s_deadlock);
    out->last_detection_ms = atomic_load(&s_last_detection_ms);
    out->last_report_monotonic_ns = atomic_load(&s_last_report_ns);
}

// --- episodes -----------------------------------------------------------------

static void note(const char *text) {
    fl_log_write(text, fl_strlen(text));
}

static void end_episode(watch_state *s, uint64_t end_ns, const char *ended_by) {
    if (!s->active) return;
    if ((s->reported || s->deadlock_reported) && !s->traced) {
        if (fl_hang_report_recovered(&s->ep, end_ns, ended_by) == 0) atomic_fetch_add(&s_recovered, 1);
    }
    s->active = 0;
}

static void saw_alive(watch_state *s, uint64_t t) {
    if (t > s->last_alive_ns) s->last_alive_ns = t;
    end_episode(s, t, "responsive");
}

static void begin_episode(watch_state *s, int mode, pid_t tid, uint64_t start, const fl_thread_probe *p,
                          const fl_hang_options *o) {
    s->active = 1;
    s->reported = 0;
    s->deadlock_reported = 0;
    s->traced = fl_probe_tracer_pid() != 0;
    s->traced_noted = 0;
    fl_sample_ring_clear(&g_ring, o->ring, fl_agent_config.max_frames);
    memset(&s->ep, 0, sizeof s->ep);
    s->ep.mode = k_mode_names[mode];
    s->ep.tid = tid;
    s->ep.start_ns = start;
    s->ep.cpu_start_ns = p->cpu_ns;
    s->ep.ring = &g_ring;
    s->ep.opts = *o;
}

/// A report is about to be written: under a debugger it is not (a thread
/// stopped at a breakpoint is not hung).
static int suppressed_by_tracer(watch_state *s) {
    if (s->traced_noted) return 1;
    int tracer = fl_probe_tracer_pid();
    if (!tracer) return 0;
    s->traced = 1;
    s->traced_noted = 1;
    char line[200];
    snprintf(line, sizeof line, "faultline: thread %d has not responded for %llu ms, but the process is traced "
             "(TracerPid %d); no hang report\n", (int)s->ep.tid,
             (unsigned long long)((fl_monotonic_ns() - s->ep.start_ns) / 1000000ull), tracer);
    note(line);
    return 1;
}

static void after_report(watch_state *s, uint64_t detection_ns, int signals) {
    atomic_store(&s_last_detection_ms, detection_ns / 1000000ull);
    atomic_store(&s_last_report_ns, fl_monotonic_ns());
    // The report interrupted the thread (culprit, threads list, chain):
    // those wake-ups are not the thread's own progress.
    s->signals_since_probe += signals;
}

// --- sampling -------------------------------------------------------------------

static void take_sample(watch_state *s, pid_t tid, uint64_t now, int blocked) {
    fl_hang_sample *x = fl_sample_ring_push(&g_ring, now);
    uint64_t t0 = fl_monotonic_ns();
    int by_fp = 0;
    int stopped = 0;
    int n = fl_capture_thread_sample(tid, x->pcs, g_ring.max_frames, (uint64_t)fl_agent_config.thread_timeout_ms * 1000000ull,
                                     &by_fp, &stopped);
    // A stop makes the watched thread miss its heartbeats first; the
    // watchdog is then often stopped here, waiting for its answer.
    if (stopped) s->stopped_in_tick = 1;
    uint64_t dt = fl_monotonic_ns() - t0;
    x->n = n > 0 ? n : 0;
    x->by_fp = n > 0 && by_fp;
    s->signals_since_probe++;
    if (n > 0 && blocked) s->block_stack_known = 1;
    atomic_fetch_add(&s_samples, 1);
    atomic_fetch_add(&s_sample_ns, dt);
    if (dt > atomic_load(&s_sample_max)) atomic_store(&s_sample_max, dt);
}

/// One sample per tick. A thread that has not run since the previous sample
/// is not interrupted again (its stack cannot have changed); a thread in a
/// call that a signal would cut short (nanosleep, poll…) gets a pending
/// sample whose stack is taken once, when the hang is reported.
static void sample(watch_state *s, const fl_thread_probe *p, fl_wait_kind k, int unchanged,
                   const fl_thread_probe *prev, uint64_t now) {
    int running = k == FL_WAIT_RUNNING;
    fl_hang_sample *last = fl_sample_ring_last(&g_ring);
    if (!running && unchanged && s->block_stack_known && last && last->n > 0) {
        int n = last->n;
        fl_hang_sample *x = fl_sample_ring_push(&g_ring, now);
        // With a one-slot ring `x` is `last` itself, whose frames stay.
        if (x != last) for (int i = 0; i < n; i++) x->pcs[i] = last->pcs[i];
        x->n = n;
        x->by_fp = last->by_fp;
        x->reused = 1;
        atomic_fetch_add(&s_reused, 1);
        return;
    }
    if (!unchanged) fl_sample_ring_resolve(&g_ring, 0, 0, 0);  // earlier blocks' pending samples are lost
    if (!running && !fl_syscall_tolerates_signal(p->nr)) {
        // Re-entering the same call again and again (short sleeps in a
        // loop) is not one long call: interrupting one costs little.
        int short_calls = prev && !unchanged && !prev->running && prev->nr == p->nr;
        if (!short_calls) {
            fl_sample_ring_push(&g_ring, now)->pending = 1;
            return;
        }
    }
    int sig = fl_threads_signal();
    if (sig > 0 && sig <= 64 && ((p->sigblk >> (sig - 1)) & 1)) {
        fl_sample_ring_push(&g_ring, now);  // the thread blocks the sample signal: no stack
        return;
    }
    take_sample(s, p->tid, now, !running);
}

// --- one tick ---------------------------------------------------------------------

static void deadlock(watch_state *s, const fl_wait_chain *chain, const char *cause) {
    if (suppressed_by_tracer(s)) return;
    int abort_after = s->ep.opts.deadlock_abort;
    uint64_t det = 0;
    s->deadlock_reported = 1;
    int ok = fl_hang_report_deadlock(&s->ep, chain, cause, s->block_since_ns, abort_after ? "abort" : "continue", &det) == 0;
    after_report(s, det, chain->count + 2);
    if (ok) atomic_fetch_add(&s_deadlock, 1);  // after the figures: a reader polls this count
    if (abort_after) {
        note("faultline: aborting the deadlocked process (FAULTLINE_DEADLOCK_ABORT=0 keeps it running)\n");
        // The abort is the deadlock report's consequence, not a new crash.
        fl_crash_suppress_next_abort();
        abort();
    }
}

/// What one tick saw of the watched thread (phases 2 and 3 of tick).
typedef struct tick_look {
    fl_thread_probe p, prev;  // now, and at the last tick
    fl_wait_kind k;
    int same;                 // the last tick probed the same thread
    int signals;              // our own signals since (their wake-ups are not progress)
    int progressed, unchanged;
    fl_wait_chain *chain;     // when it waits on a futex
    int cycle_confirmed, lock_wait, in_cycle;
    fl_edge_kind edge;
} tick_look;

// 1. Signs of life from pings and heartbeats. `*alive`: the last moment
// the thread was known responsive (hang durations and detection_ms count
// from it, so they are upper bounds); `*bad`: the first moment it was seen
// unresponsive (the thresholds count from it, so no hang shorter than the
// threshold is reported). 1 when the thread answered: nothing more to do.
static int signs_of_life(watch_state *s, int mode, faultline_hang_pinger pinger, uint64_t hb, uint64_t now, uint64_t *alive, uint64_t *bad) {
    *alive = s->last_alive_ns;
    if (mode == MODE_PING) {
        if (!s->ping_sent_ns || hb >= s->ping_sent_ns) {
            saw_alive(s, s->ping_sent_ns ? hb : now);
            s->ping_sent_ns = now;
            atomic_fetch_add(&s_pings, 1);
            pinger(atomic_load(&g_pinger_ctx));
            return 1;
        }
        *bad = s->ping_sent_ns;  // a ping the thread did not answer
    } else if (mode == MODE_HEARTBEAT) {
        if (hb >= s->prev_tick_ns) { saw_alive(s, hb); return 1; }
        if (hb > *alive) *alive = hb;
        *bad = hb;               // the loop has not come back since
    } else {
        *bad = s->active ? s->bad_since_ns : now;
    }
    if (s->resume_ns > *alive) *alive = s->resume_ns;
    if (*alive > *bad) *bad = *alive;
    return 0;
}

// 2. What the thread is doing. 0 when it has exited (the episode, if any, ends).
static int probe(watch_state *s, int mode, pid_t target, uint64_t now, tick_look *l) {
    uint64_t t0 = fl_monotonic_ns();
    fl_probe_keep(target);
    int rc = fl_probe_thread(target, &l->p);
    if (rc == -2 && s->unreadable_noted != target) {
        s->unreadable_noted = target;
        char line[200];
        snprintf(line, sizeof line, "faultline: cannot open /proc/%d/syscall (the process is not dumpable); "
                 "thread %d is not watched for hangs\n", (int)target, (int)target);
        note(line);
    }
    atomic_fetch_add(&s_probes, 1);
    atomic_fetch_add(&s_probe_ns, fl_monotonic_ns() - t0);
    l->k = rc == 0 ? fl_probe_classify(&l->p) : FL_WAIT_GONE;
    if (l->k == FL_WAIT_GONE) {
        // The watched thread exited: nothing to watch until another one
        // sends a heartbeat (in inferred mode: the main thread is gone).
        if (mode == MODE_HEARTBEAT) { atomic_store(&g_hb_ns, 0); atomic_store(&g_hb_tid, 0); }
        if (mode == MODE_PING) atomic_store(&g_hb_tid, 0);
        s->have_last_probe = 0;
        if (s->active) end_episode(s, now, "thread_exit");
        s->last_alive_ns = now;
        return 0;
    }
    l->same = s->have_last_probe && s->last_probe.tid == l->p.tid;
    l->prev = s->last_probe;
    l->signals = l->same ? s->signals_since_probe : 0;
    l->progressed = l->same && l->p.vcsw - l->prev.vcsw > (uint64_t)l->signals;
    l->unchanged = l->same && fl_probe_unchanged(&l->prev, &l->p, l->signals);
    s->last_probe = l->p;
    s->have_last_probe = 1;
    s->signals_since_probe = 0;
    if (!l->unchanged) { s->block_since_ns = now; s->block_stack_known = 0; }
    return 1;
}

// 3. Wait-for chain and cycle, whenever it waits on a futex.
static void follow_waits(watch_state *s, uint64_t now, tick_look *l) {
    l->chain = 0;
    l->cycle_confirmed = 0;
    if (l->k == FL_WAIT_FUTEX) {
        l->chain = &g_chains[g_chain_cur];
        fl_wait_chain_follow(&l->p, l->chain);
        if (l->chain->cycle_start >= 0) {
            l->cycle_confirmed = g_have_prev_cycle && fl_wait_cycle_confirmed(&g_chains[g_chain_cur ^ 1], l->chain);
            if (l->chain->count - l->chain->cycle_start == 1 && now - s->block_since_ns < FL_SELF_CYCLE_NS) l->cycle_confirmed = 0;
            g_have_prev_cycle = 1;
            g_chain_cur ^= 1;
        } else {
            g_have_prev_cycle = 0;
        }
    } else {
        g_have_prev_cycle = 0;
    }
    l->edge = l->chain ? l->chain->links[0].edge.kind : FL_EDGE_NONE;
    l->lock_wait = l->edge == FL_EDGE_MUTEX || l->edge == FL_EDGE_PI_MUTEX || l->edge == FL_EDGE_RWLOCK;
    l->in_cycle = l->chain && l->chain->cycle_start >= 0;
}

// 4. Idle (waiting for events) or, when inferring, making progress: 1 when
// the thread counts as responsive.
static int responsive(watch_state *s, int mode, uint64_t now, const fl_hang_options *o, const tick_look *l) {
    fl_wait_kind k = l->k;
    int idle = k == FL_WAIT_IDLE || k == FL_WAIT_STOPPED;
    // An event loop waits for events again and again; one select or poll
    // (a test waiting once on a socket pair, then computing and sleeping)
    // is not one. A wait counts when it is new: the last tick did not see
    // one, or the thread woke and waited again since. The same call still
    // waiting is not looked at again (its descriptors cost fstat calls).
    int event_wait = k == FL_WAIT_IDLE && ((l->unchanged && s->in_event_wait) || fl_probe_waits_for_events(&l->p));
    if (event_wait) {
        if (!s->in_event_wait || l->progressed) s->event_waits++;
        s->last_event_wait_ns = now;
        if (s->event_waits >= FL_EVENT_LOOP_WAITS) s->event_loop_seen = 1;
    }
    s->in_event_wait = event_wait;
    // The program's launch ends at its first wait for events (launch_clock.h).
    if (s->event_loop_seen) fl_launch_note_ready(now, "event_loop");
    if (mode != MODE_INFERRED) return idle;
    // Without pings, a thread waiting for another thread's result
    // (condition variable, semaphore, join) is how worker pools and
    // command-line tools work; a lock wait (a mutex, an rwlock a writer
    // holds) or a lock cycle is not.
    if (k == FL_WAIT_FUTEX && !l->lock_wait && !l->in_cycle) idle = 1;
    // Blocked writing into a full pipe is waiting for its reader, another
    // process, as a pipe read waits for its writer: a pipeline's pace
    // (`curl URL | slow-consumer`, after curl had polled its socket, was
    // a hang). A write to a file, disk or socket still counts.
    if (k == FL_WAIT_BLOCKED && fl_probe_writes_to_pipe(&l->p)) idle = 1;
    // Blocking and waking again since the last look (beyond the wake-ups
    // our own signals caused) is progress: it is not stuck in one place.
    if (l->progressed && !l->in_cycle) idle = 1;
    // Until main has been seen waiting for events, the program is taken
    // for a batch job (a compiler, sort, sleep, a script) whose main
    // thread is meant to be busy or asleep: `faultline exec -- sleep 3`
    // was a hang. Lock waits and cycles still count (hang.batch-program).
    if (!s->event_loop_seen && !l->lock_wait && !l->in_cycle) idle = 1;
    // A loop that has returned: responsive by the rules above, with no
    // event wait for a stretch as long as the threshold (a test suite
    // that ran a main loop in one test and computes or sleeps in the
    // next). A hang in the loop is never responsive, so it stays armed.
    if (idle && !event_wait && s->event_loop_seen && now - s->last_event_wait_ns >= o->threshold_ns) {
        s->event_loop_seen = 0;
        s->event_waits = 0;
    }
    return idle;
}

// FAULTLINE_HANG_DEBUG: one line per tick.
static void debug_line(const watch_state *s, int mode, int idle, const tick_look *l) {
    char line[256];
    const fl_thread_probe *p = &l->p;
    snprintf(line, sizeof line, "faultline-wdog: tid %d %s%s%s vcsw %llu (+%llu, %d ours) edge %s owner %d%s -> %s\n",
             (int)p->tid, fl_wait_kind_name(l->k), p->nr >= 0 && !p->running ? " in " : "",
             p->nr >= 0 && !p->running && fl_syscall_name(p->nr) ? fl_syscall_name(p->nr) : "",
             (unsigned long long)p->vcsw, (unsigned long long)(l->same ? p->vcsw - l->prev.vcsw : 0), l->signals,
             fl_edge_kind_name(l->edge), l->chain ? (int)l->chain->links[0].edge.owner : 0, l->in_cycle ? " (cycle)" : "",
             idle ? (mode == MODE_INFERRED && !s->event_loop_seen ? "responsive (no event loop seen yet)" : "responsive")
                  : "not responsive");
    note(line);
}

// 5. Not responsive: the episode, its samples, and the report once a
// threshold has passed or a cycle is confirmed.
static void not_responsive(watch_state *s, int mode, pid_t target, uint64_t now, uint64_t alive, uint64_t bad,
                           const fl_hang_options *o, tick_look *l) {
    if (!s->active) begin_episode(s, mode, target, alive, &l->p, o);
    s->bad_since_ns = bad;
    s->ep.start_ns = alive;
    s->ep.first_seen_ns = bad;
    s->ep.probe = l->p;
    s->ep.have_probe = 1;
    s->ep.opts = *o;
    if (s->traced) {
        if (now + FL_TICK_SLACK_NS - bad >= o->threshold_ns) suppressed_by_tracer(s);
        return;
    }
    sample(s, &l->p, l->k, l->unchanged, l->same ? &l->prev : 0, now);

    if (l->cycle_confirmed && !s->deadlock_reported) { deadlock(s, l->chain, "cycle"); return; }
    if (!s->reported && now + FL_TICK_SLACK_NS - bad >= o->threshold_ns && !s->deadlock_reported) {
        if (suppressed_by_tracer(s)) return;
        uint64_t det = 0;
        s->reported = 1;
        int ok = fl_hang_report_hang(&s->ep, &det) == 0;
        after_report(s, det, 3);
        if (ok) atomic_fetch_add(&s_hang, 1);  // after the figures: a reader polls this count
        // The report took the stack of the current block (pending samples):
        // later samples of the same block reuse it.
        fl_hang_sample *last = fl_sample_ring_last(&g_ring);
        if (l->k != FL_WAIT_RUNNING && last && last->n > 0) s->block_stack_known = 1;
        return;
    }
    if (!s->deadlock_reported && o->deadlock_ns && l->k == FL_WAIT_FUTEX && now + FL_TICK_SLACK_NS - s->block_since_ns >= o->deadlock_ns &&
        now + FL_TICK_SLACK_NS - bad >= o->deadlock_ns)
        deadlock(s, l->chain, "duration");
}

static void tick(watch_state *s, uint64_t now) {
    fl_hang_options o;
    fl_hang_options_get(&o);
    faultline_hang_pinger pinger = atomic_load(&g_pinger);
    uint64_t hb = atomic_load_explicit(&g_hb_ns, memory_order_acquire);
    int mode = pinger ? MODE_PING : hb ? MODE_HEARTBEAT : MODE_INFERRED;
    atomic_store(&s_mode, mode);
    if (mode != MODE_INFERRED) fl_launch_note_ready(now, mode == MODE_PING ? "ping" : "heartbeat");
    atomic_fetch_add(&s_ticks, 1);
    pid_t target = g_main_tid;
    if (mode != MODE_INFERRED && atomic_load(&g_hb_tid) > 0) target = atomic_load(&g_hb_tid);
    if (s->active && s->ep.tid != target) saw_alive(s, now);  // another thread now answers: the old one did
    if (mode != MODE_PING) s->ping_sent_ns = 0;

    uint64_t alive, bad;
    if (signs_of_life(s, mode, pinger, hb, now, &alive, &bad)) return;
    tick_look l;
    if (!probe(s, mode, target, now, &l)) return;
    follow_waits(s, now, &l);
    int idle = responsive(s, mode, now, &o, &l);
    if (g_debug) debug_line(s, mode, idle, &l);
    if (idle) { saw_alive(s, now); return; }
    not_responsive(s, mode, target, now, alive, bad, &o, &l);
}

// --- the thread -------------------------------------------------------------------

/// Waits until `deadline` (or an exit or solo-call request). Returns 1 when
/// the thread was stopped meanwhile: it switched out more often than it
/// went to sleep, the extra switch being a group stop's (SIGSTOP, a
/// debugger). A thread that only waited for a CPU under load has no extra
/// switch: it was runnable, never switched out.
static int wait_for_tick(uint64_t deadline) {
    unsigned seen = atomic_load(&g_wake);
    uint64_t before = fl_own_voluntary_switches(), sleeps = 0;
    // Again after a signal (EINTR): a credential-mirror request
    // (cred_mirror.h) must not bring the next tick forward.
    for (uint64_t now = fl_monotonic_ns(); now < deadline; now = fl_monotonic_ns()) {
        if (atomic_load(&g_exit_state) || atomic_load(&g_wake) != seen) break;
        uint64_t left = deadline - now;
        struct timespec ts = {(time_t)(left / 1000000000ull), (long)(left % 1000000000ull)};
        sleeps++;
        if (syscall(SYS_futex, &g_wake, FUTEX_WAIT_PRIVATE, seen, &ts, (void *)0, 0) == 0 || errno != EINTR) break;
    }
    uint64_t after = fl_own_voluntary_switches();
    return after > before + sleeps;
}

/// 1 when the tick that was due at `due` came so late that whatever did not
/// happen meanwhile is nobody's hang: the process was stopped (`stopped`,
/// from wait_for_tick, or during the previous tick's sample) and the tick
/// is late by more than FL_RESUME_GAP_NS. Lateness counts from the later of
/// `due` and the end of the previous tick (writing a report is the
/// watchdog's own work), or from `due` when that tick was stopped. A tick
/// that is late only because the watchdog waited for a CPU is not a stop:
/// on a loaded machine (load 20 on 2 cores) ticks came 265-350 ms late now
/// and then, which restarted the hang clock in the middle of 3 s hangs and
/// lost their reports, or cut a recovered hang's duration to 1 s.
static int stopped_since_last_tick(watch_state *s, uint64_t due, uint64_t now, int stopped) {
    // Stopped during the previous tick's work: late from the planned time.
    if (s->stopped_in_tick) stopped = 1;
    else if (s->prev_tick_end_ns > due) due = s->prev_tick_end_ns;
    s->stopped_in_tick = 0;
    uint64_t late = now > due ? now - due : 0;
    if (late <= FL_RESUME_GAP_NS) return 0;
    if (g_debug) {
        char line[160];
        snprintf(line, sizeof line, "faultline-wdog: tick %llu ms late, %s\n", (unsigned long long)(late / 1000000ull),
                 stopped ? "the process was stopped: the hang clock restarts" : "waiting for a CPU (not stopped)");
        note(line);
    }
    return stopped;
}

static void block_signals(void) {
    // Process-directed signals go to the program's threads, never here; the
    // sample signal stays open (a crash report asks every thread for its
    // stack) and so do synchronous faults (blocking them would make the
    // kernel kill the process without running the crash handler).
    sigset_t set;
    sigfillset(&set);
    fl_crash_signals_del(&set);
    if (fl_threads_signal()) sigdelset(&set, fl_threads_signal());
    pthread_sigmask(SIG_SETMASK, &set, 0);
}

static int restart_watchdog(void);

// Wakes the watchdog from wait_for_tick at once, as at exit.
static void wake_watchdog(fl_solo_thread *t) {
    (void)t;
    atomic_fetch_add(&g_wake, 1);
    syscall(SYS_futex, &g_wake, FUTEX_WAKE_PRIVATE, 1, (void *)0, (void *)0, 0);
}

/// The watchdog, stopped around calls the kernel refuses in a
/// multi-threaded process (solo_call.h) between two ticks. The episode it
/// follows, its samples and its figures (its CPU time too) stay; the tick
/// schedule starts over.
static fl_solo_thread g_solo = {.name = "faultline-wdog", .wake = wake_watchdog, .start = restart_watchdog};

static void *watchdog_main(void *unused) {
    (void)unused;
    block_signals();
    fl_cred_mirror_thread_begin();
    fl_solo_thread_begin(&g_solo);
    static watch_state s;  // kept when a solo call restarts the thread
    uint64_t now = fl_monotonic_ns();
    if (!s.prev_tick_ns) s.last_alive_ns = now;
    s.prev_tick_ns = s.prev_tick_end_ns = now;  // the time it was away is no gap of the program's
    uint64_t next = now;
    for (;;) {
        fl_hang_options o;
        fl_hang_options_get(&o);
        next += o.sample_ns;
        int stopped = wait_for_tick(next);
        atomic_store(&g_watchdog_busy, 1);  // before it reads g_exit_state
        now = fl_monotonic_ns();
        if (fl_solo_thread_stop_asked(&g_solo)) {
            struct timespec cpu;
            if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0)
                atomic_fetch_add(&s_cpu_before_restart, (uint64_t)cpu.tv_sec * 1000000000ull + (uint64_t)cpu.tv_nsec);
            fl_cred_mirror_thread_end();
            fl_thread_recount();
            return 0;
        }
        if (atomic_load(&g_exit_state) == 1) {
            pid_t caller = atomic_load(&g_exit_tid);
            const char *why = atomic_load(&g_uninstalling) ? "uninstall" : caller == s.ep.tid ? "exit" : "process_exit";
            if (s.active) end_episode(&s, now, why);
            fl_solo_thread_end(&g_solo);
            fl_cred_mirror_thread_end();
            atomic_store(&g_exit_state, 2);
            fl_thread_recount();
            return 0;
        }
        if (stopped_since_last_tick(&s, next, now, stopped)) s.resume_ns = now;
        if (now > next + o.sample_ns) next = now;  // late: do not fire a burst of ticks
        // A crash report in progress: its thread is in our handler, not hung
        // in the program (the handler has a deadline of its own).
        if (fl_crash_in_progress()) { s.prev_tick_ns = s.prev_tick_end_ns = now; continue; }
        tick(&s, now);
        s.prev_tick_ns = now;
        s.prev_tick_end_ns = fl_monotonic_ns();
        atomic_store(&g_watchdog_busy, s.active);
    }
    fl_thread_recount();
    return 0;
}

static void at_exit(void) {
    if (!atomic_load(&g_running)) return;
    atomic_store(&g_exit_tid, fl_gettid());
    int expected = 0;
    if (!atomic_compare_exchange_strong(&g_exit_state, &expected, 1)) return;
    // Waiting between ticks with no episode to end: it finds the request at
    // its next tick and ends there. Waking it cost the exit a wake-up of a
    // thread whose CPU may be idle: ~2 ms on a virtual machine.
    if (!atomic_load(&g_watchdog_busy)) return;
    wake_watchdog(&g_solo);
    uint64_t deadline = fl_monotonic_ns() + FL_EXIT_WAIT_NS;
    while (atomic_load(&g_exit_state) != 2 && fl_monotonic_ns() < deadline) fl_sleep_ns(200000);
}

static void after_fork_child(void) {
    // The child has no watchdog thread; an exec'd program installs its own.
    atomic_store(&g_running, 0);
    fl_probe_forget();
}

// Starts the watchdog thread; 0, or -1 with errno.
static int start_watchdog(void) {
    int rc = fl_agent_thread_create(&g_solo, &g_thread, 0, 0, watchdog_main);
    if (rc != 0) { errno = rc; return -1; }
    fl_thread_uncount();  // it must not keep the process alive
    return 0;
}

// After a solo call: the thread it stopped has ended; joined, its stack is
// given back. Not started again, at_exit must not wait for it.
static int restart_watchdog(void) {
    pthread_join(g_thread, 0);
    if (start_watchdog() == 0) return 0;
    atomic_store(&g_running, 0);
    return -1;
}

int fl_hang_install(void) {
    if (atomic_load(&g_running)) return 0;
    atomic_store(&g_exit_state, 0);
    atomic_store(&g_uninstalling, 0);
    fl_hang_options_load_env();
    const char *debug = fl_option_value(FL_OPT_HANG_DEBUG);
    g_debug = debug && *debug == '1';
    if (fl_sample_ring_init(&g_ring) != 0 || fl_hang_report_init() != 0) return -1;
    g_main_tid = getpid();
    // Now, while the process may still be dumpable (see fl_probe_keep).
    fl_probe_keep(g_main_tid);
    if (start_watchdog() != 0) return -1;
    atomic_store(&g_running, 1);
    static int once;  // a reinstall registers nothing twice
    if (!once++) {
        atexit(at_exit);
        pthread_atfork(0, 0, after_fork_child);
    }
    return 0;
}

void fl_hang_uninstall(void) {
    if (!atomic_load(&g_running)) return;
    // The exit path's request, always woken and waited for: the episode
    // under way ends ("uninstall"), and the thread is joined so that a
    // reinstall starts the only watchdog.
    atomic_store(&g_uninstalling, 1);
    atomic_store(&g_exit_tid, fl_gettid());
    int expected = 0;
    if (!atomic_compare_exchange_strong(&g_exit_state, &expected, 1)) {
        atomic_store(&g_uninstalling, 0);  // exiting already: the episode ends as an exit
        return;
    }
    wake_watchdog(&g_solo);
    pthread_join(g_thread, 0);
    fl_probe_forget();
    atomic_store(&g_running, 0);
}
