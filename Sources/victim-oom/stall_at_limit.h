#ifndef VICTIM_STALL_AT_LIMIT_H
#define VICTIM_STALL_AT_LIMIT_H

/// Turns the cgroup's OOM killer off, lets a child (`self mmap-grow 1M`)
/// stall at the limit, and checks that the memory monitor still wrote a
/// breadcrumb; exits 0 when it did, 1 with a one-line reason otherwise.
void victim_stall_at_limit(const char *self);

#endif
