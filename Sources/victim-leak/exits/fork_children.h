// victim-leak fork-children: an exit check in each forked child.
#ifndef VICTIM_LEAK_FORK_CHILDREN_H
#define VICTIM_LEAK_FORK_CHILDREN_H

/// Fills the global cache and loses 77 bytes, then forks `n` children one
/// after another that each free part of the cache they inherited, lose 33
/// bytes of their own and exit normally (an exit check in each). Returns
/// 0, 1 when a child did not exit 0, 2 when fork failed.
int victim_fork_children(int n);

#endif
