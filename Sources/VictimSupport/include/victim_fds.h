// What victims need to run a process out of fds, as a program that leaks
// them ends up.
#ifndef VICTIM_FDS_H
#define VICTIM_FDS_H

/// Opens /dev/null (close-on-exec) until no fd is left, and keeps them all;
/// returns how many it opened, errno saying what stopped it (EMFILE). A
/// soft RLIMIT_NOFILE above 4096 is lowered to 4096 first, so that a
/// machine allowing 2^20 fds is out of them as quickly; that is still far
/// above the range where Faultline keeps its own fds (960 and up under
/// 1024).
int victim_use_up_fds(void);

/// Closes what victim_use_up_fds opened.
void victim_release_fds(void);

#endif
