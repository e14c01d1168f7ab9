#include "line_reader.h"
#include "fd_transient.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int fl_each_line(const char *path, char *buf, size_t cap, int (*fn)(char *line, void *ctx), void *ctx) {
    int fd = fl_open_high(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t have = 0;   // bytes in buf
    int skipping = 0;  // inside a line longer than buf
    for (int stop = 0; !stop;) {
        ssize_t r = read(fd, buf + have, cap - 1 - have);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            // A last line without a newline.
            if (have && !skipping) { buf[have] = 0; fn(buf, ctx); }
            break;
        }
        have += (size_t)r;
        char *line = buf, *end = buf + have, *nl;
        while (!stop && (nl = memchr(line, '\n', (size_t)(end - line)))) {
            *nl = 0;
            if (!skipping) stop = fn(line, ctx);
            skipping = 0;
            line = nl + 1;
        }
        if (stop) break;
        have = (size_t)(end - line);
        if (have == cap - 1) { skipping = 1; have = 0; }  // no newline in a full buffer
        else memmove(buf, line, have);
    }
    fl_close_high(fd);
    return 0;
}
