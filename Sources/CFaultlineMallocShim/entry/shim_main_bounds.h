// The main thread's stack bounds, found at start-up without reading
// /proc/self/maps.
#ifndef SHIM_MAIN_BOUNDS_H
#define SHIM_MAIN_BOUNDS_H

/// On the main thread, before its first recorded allocation: fills its
/// stack bounds (shim_thread.h) as glibc's pthread_getattr_np would give
/// them, when that can be had without /proc/self/maps; else leaves them to
/// be asked for as before.
void shim_main_bounds_fill(void);

#endif
