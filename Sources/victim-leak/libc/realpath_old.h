// The realpath-old command of victim-leak (realpath_old.c).
#ifndef VICTIM_LEAK_REALPATH_OLD_H
#define VICTIM_LEAK_REALPATH_OLD_H

/// Calls realpath(path, NULL) through glibc's old version (GLIBC_2.2.5 on
/// x86_64: EINVAL, nothing allocated), then through the current one (a
/// block, lost from lose_realpath_new). Returns 0.
int victim_realpath_old(void);

#endif
