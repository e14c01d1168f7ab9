#include "thread_growth.h"
#include "env_option.h"
#include "thread_records.h"
#include "thread_report.h"

#include <stdatomic.h>

_Static_assert(FL_OPT_HI_THREAD_GROWTH <= FL_THREAD_RECORDS, "FAULTLINE_THREAD_GROWTH beyond the records followed");

static atomic_int g_mark;

void fl_thread_growth_init(void) {
    atomic_store(&g_mark, fl_env_int(FL_OPT_THREAD_GROWTH));
}

void fl_thread_growth_check(void) {
    int mark = atomic_load(&g_mark);
    if (mark <= 0 || fl_thread_records_live() < mark) return;
    if (!atomic_compare_exchange_strong(&g_mark, &mark, mark * 2)) return;  // another creator reports it
    fl_thread_report_write("thread_growth", mark);
}
