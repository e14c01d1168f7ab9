// The /proc text readers, fed a file of any bytes (a memfd named through
// /proc/self/fd): the line reader under every /proc read, and the
// /proc/self/maps parser behind each report's image list.
#include "image_list.h"
#include "line_reader.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static fl_image_list g_images;

struct seen { size_t cap; int lines; };

static int each(char *line, void *ctx) {
    struct seen *s = ctx;
    if (strlen(line) >= s->cap) abort();
    s->lines++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int fd = memfd_create("fuzz-proc", MFD_CLOEXEC);
    if (fd < 0) return 0;
    for (size_t done = 0; done < size;) {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0) { close(fd); return 0; }
        done += (size_t)w;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    char buf[80];
    struct seen s = {sizeof buf, 0};
    if (fl_each_line(path, buf, sizeof buf, each, &s) != 0) abort();

    int n = fl_images_load_fd(&g_images, fd);
    if (n < 0 || n > FL_MAX_IMAGES || n != g_images.count) abort();
    for (int i = 0; i < n; i++)
        if (memchr(g_images.images[i].path, 0, sizeof g_images.images[i].path) == 0) abort();
    close(fd);
    return 0;
}
