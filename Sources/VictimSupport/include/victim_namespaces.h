// Entering namespaces the way `unshare -r`, `nsenter` and container
// runtimes do, for the victims that then crash or hang.
#ifndef VICTIM_NAMESPACES_H
#define VICTIM_NAMESPACES_H

/// As root: starts a helper process in a new user and mount namespace
/// (clone), maps root to root in it, then on the calling thread setns into
/// its mount namespace, setns into its user namespace (nstype 0),
/// unshare(CLONE_NEWUSER), unshare(CLONE_NEWTIME) and setns into that time
/// namespace. With `worker`, a thread of the program's own ('prog-worker')
/// runs meanwhile, so each call the kernel refuses in a multi-threaded
/// process fails. Writes one line per step to stderr ("victim: setns into
/// a mount namespace: ok" or the error), then one per thread saying
/// whether it is in main's user and mount namespaces. Returns how many
/// steps failed.
int victim_enter_namespaces(int worker);

#endif
