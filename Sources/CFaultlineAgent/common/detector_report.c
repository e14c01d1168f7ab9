#include "detector_report.h"
#include "sigsafe.h"
#include "thread_capture.h"
#include "tool_log.h"

#include <sys/mman.h>
#include <unistd.h>

int fl_detector_report_map(fl_detector_report *d, size_t size) {
    if (d->buf) return 0;
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    char *buf = mmap(0, size, PROT_READ | PROT_WRITE, flags, -1, 0);
    fl_image_list *images = mmap(0, sizeof *images, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (buf == MAP_FAILED || images == MAP_FAILED) {
        if (buf != MAP_FAILED) munmap(buf, size);
        if (images != MAP_FAILED) munmap(images, sizeof *images);
        return -1;
    }
    d->images = images;
    d->size = size;
    d->buf = buf;
    return 0;
}

int fl_detector_report_begin(fl_detector_report *d, fl_report *r, const char *kind) {
    if (!d->buf) return -1;
    if (d->images) fl_images_load(d->images);
    fl_report_begin(r, d->buf, d->size, kind);
    return 0;
}

void fl_detector_report_thread(fl_json *w, pid_t tid, const char *stack) {
    char name[64];
    fl_json_begin_object(w, "crashed_thread");
    fl_json_int(w, "tid", tid);
    if (fl_thread_name(tid, name, sizeof name) > 0) fl_json_string(w, "name", name);
    fl_json_bool(w, "main", tid == getpid());
    fl_json_string(w, "stack", stack);
}

int fl_detector_report_end(fl_detector_report *d, fl_report *r, uint64_t t0) {
    if (d->images) fl_report_images(&r->json, d->images);
    if (t0) fl_report_capture(&r->json, t0);
    char file[128];
    if (fl_report_commit(r, file, sizeof file) != 0) return -1;
    char line[256];
    size_t n = fl_strlcpy(line, "faultline: report written: ", sizeof line);
    n += fl_strlcpy(line + n, file, sizeof line - n);
    if (n < sizeof line - 1) line[n++] = '\n';
    fl_log_write(line, n);
    return 0;
}
