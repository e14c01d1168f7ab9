// Commands of victim-heap that live in files of their own (main.c holds
// the table that names them all).
#ifndef VICTIM_HEAP_H
#define VICTIM_HEAP_H

/// Every allocation entry point glibc exports, each block checked and freed.
int entry_points(void);

#endif
