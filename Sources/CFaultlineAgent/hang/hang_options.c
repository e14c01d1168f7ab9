#include "env_option.h"
#include "hang_options.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

// Defaults and ranges: the options table (fl_options.h), which the API's
// checks share.
#define DEFAULT_THRESHOLD_MS FL_OPT_DEFAULT_HANG_THRESHOLD_MS
#define MIN_THRESHOLD_MS FL_OPT_LO_HANG_THRESHOLD_MS
#define MAX_THRESHOLD_MS FL_OPT_HI_HANG_THRESHOLD_MS
#define DEFAULT_SAMPLE_MS FL_OPT_DEFAULT_HANG_SAMPLE_MS
#define MIN_SAMPLE_MS FL_OPT_LO_HANG_SAMPLE_MS
#define MAX_SAMPLE_MS FL_OPT_HI_HANG_SAMPLE_MS
#define DEFAULT_RING FL_OPT_DEFAULT_HANG_SAMPLES
#define DEFAULT_DEADLOCK_MS FL_OPT_DEFAULT_DEADLOCK_THRESHOLD_MS
_Static_assert(FL_OPT_HI_HANG_SAMPLES <= FL_HANG_RING_MAX, "the sample ring holds the option's range");

static atomic_int g_threshold_ms = DEFAULT_THRESHOLD_MS;
static atomic_int g_sample_ms = DEFAULT_SAMPLE_MS;
static atomic_int g_deadlock_ms = DEFAULT_DEADLOCK_MS;
static atomic_int g_ring = DEFAULT_RING;
static atomic_int g_abort = 1;
// Fields set through faultline_hang_configure, which the environment does
// not override (API values win over variables, as for faultline_options).
static atomic_int g_set_by_api;
enum { SET_THRESHOLD = 1, SET_SAMPLE = 2, SET_DEADLOCK = 4, SET_ABORT = 8 };

void fl_hang_options_load_env(void) {
    int api = atomic_load(&g_set_by_api);
    if (!(api & SET_THRESHOLD))
        atomic_store(&g_threshold_ms, fl_env_int(FL_OPT_HANG_THRESHOLD_MS));
    if (!(api & SET_SAMPLE))
        atomic_store(&g_sample_ms, fl_env_int(FL_OPT_HANG_SAMPLE_MS));
    atomic_store(&g_ring, fl_env_int(FL_OPT_HANG_SAMPLES));
    if (!(api & SET_DEADLOCK))
        atomic_store(&g_deadlock_ms, fl_env_int(FL_OPT_DEADLOCK_THRESHOLD_MS));
    if (!(api & SET_ABORT)) atomic_store(&g_abort, fl_env_int(FL_OPT_DEADLOCK_ABORT));
}

void fl_hang_options_get(fl_hang_options *out) {
    int threshold = atomic_load(&g_threshold_ms);
    int deadlock = atomic_load(&g_deadlock_ms);
    out->threshold_ns = (uint64_t)threshold * 1000000ull;
    out->sample_ns = (uint64_t)atomic_load(&g_sample_ms) * 1000000ull;
    // A deadlock threshold below the hang threshold would report a deadlock
    // before the hang; the later of the two applies.
    if (deadlock > 0 && deadlock < threshold) deadlock = threshold;
    out->deadlock_ns = (uint64_t)deadlock * 1000000ull;
    out->ring = atomic_load(&g_ring);
    out->deadlock_abort = atomic_load(&g_abort);
}

int fl_hang_options_apply(int threshold_ms, int sample_ms, int deadlock_ms, int deadlock_abort,
                          char *err, int cap) {
    if (threshold_ms && (threshold_ms < MIN_THRESHOLD_MS || threshold_ms > MAX_THRESHOLD_MS)) {
        snprintf(err, (size_t)cap, "threshold_ms %d is outside %d...%d", threshold_ms, MIN_THRESHOLD_MS, MAX_THRESHOLD_MS);
        return -1;
    }
    if (sample_ms && (sample_ms < MIN_SAMPLE_MS || sample_ms > MAX_SAMPLE_MS)) {
        snprintf(err, (size_t)cap, "sample_interval_ms %d is outside %d...%d", sample_ms, MIN_SAMPLE_MS, MAX_SAMPLE_MS);
        return -1;
    }
    if (deadlock_ms < -1 || deadlock_ms > MAX_THRESHOLD_MS) {
        snprintf(err, (size_t)cap, "deadlock_threshold_ms %d is outside -1...%d (-1 turns the rule off)", deadlock_ms, MAX_THRESHOLD_MS);
        return -1;
    }
    if (deadlock_abort < -1 || deadlock_abort > 1) {
        snprintf(err, (size_t)cap, "deadlock_abort %d is not 1 (abort), -1 (keep running) or 0 (unchanged)", deadlock_abort);
        return -1;
    }
    if (threshold_ms) { atomic_store(&g_threshold_ms, threshold_ms); atomic_fetch_or(&g_set_by_api, SET_THRESHOLD); }
    if (sample_ms) { atomic_store(&g_sample_ms, sample_ms); atomic_fetch_or(&g_set_by_api, SET_SAMPLE); }
    if (deadlock_ms) { atomic_store(&g_deadlock_ms, deadlock_ms < 0 ? 0 : deadlock_ms); atomic_fetch_or(&g_set_by_api, SET_DEADLOCK); }
    if (deadlock_abort) { atomic_store(&g_abort, deadlock_abort > 0); atomic_fetch_or(&g_set_by_api, SET_ABORT); }
    return 0;
}
