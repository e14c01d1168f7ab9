// What the resource detectors' report writers share (cpu_hog, fd_leak and
// fd_pressure, thread_leak and thread_growth, launch): a buffer prepared
// before the report is needed (mapped at install, or the writer's own
// static array), the image list loaded for each report, the
// `crashed_thread` head naming the thread the report is about, and the
// end: images, capture time, the atomic commit and the "faultline: report
// written: FILE" line on the tool's log. Async-signal-safe from begin on:
// no allocation, no stdio, no lock.
#ifndef FL_DETECTOR_REPORT_H
#define FL_DETECTOR_REPORT_H

#include "report_file.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// One writer's buffer and image list.
typedef struct fl_detector_report {
    char *buf;               ///< where the JSON is written; NULL until mapped
    size_t size;             ///< its size in bytes
    fl_image_list *images;   ///< loaded for each report; NULL: no `images` section
} fl_detector_report;

/// A writer over a static array, with no image list (the launch report).
#define FL_DETECTOR_REPORT_OVER(array) {(array), sizeof(array), 0}

/// Maps `size` bytes of buffer and an image list, reserved and not
/// committed (MAP_NORESERVE). Returns 0 (also when mapped already) or -1,
/// leaving `d` unmapped. Install time.
int fl_detector_report_map(fl_detector_report *d, size_t size);
/// Loads the images (when `d` has a list) and begins a report of `kind`
/// in `d`'s buffer. Returns 0, or -1 when `d` has no buffer.
int fl_detector_report_begin(fl_detector_report *d, fl_report *r, const char *kind);
/// Opens `crashed_thread` and writes thread `tid`'s id, name, whether it
/// is the main thread, and `stack` (which stack follows: "culprit",
/// "opening", "creating"). The caller writes the frames and closes it.
void fl_detector_report_thread(fl_json *w, pid_t tid, const char *stack);
/// Ends the report: the images (when `d` has a list), the capture time
/// since `t0` (when not 0), the commit and the "report written" line.
/// Returns 0, or -1 when the file could not be written.
int fl_detector_report_end(fl_detector_report *d, fl_report *r, uint64_t t0);

#endif
