// Reads a text file (a /proc file) line by line without stdio: fopen's
// FILE and buffer and getline's line came from malloc, through the malloc
// shim, which records a stack for each (line_reader.c).
#ifndef FL_LINE_READER_H
#define FL_LINE_READER_H

#include <stddef.h>

/// Calls `fn(line, ctx)` for each line of the file at `path`, the newline
/// replaced by NUL, until `fn` returns nonzero or the file ends. `buf` (of
/// `cap` bytes) holds the lines; a line longer than it is skipped. Returns
/// -1 when the file cannot be opened, else 0.
int fl_each_line(const char *path, char *buf, size_t cap, int (*fn)(char *line, void *ctx), void *ctx);

#endif
