// victim-leak's commands for lost structures with attribution
// (lost_tree.c): what valgrind prints as one record, the lost root with
// what hangs from it.
#ifndef VICTIM_LEAK_LOST_TREE_H
#define VICTIM_LEAK_LOST_TREE_H

/// tree: builds a 127-node binary tree of 40-byte nodes by recursion
/// (make_tree, left and right calls from two call sites) and drops its
/// root: 1 block (40 bytes) definitely lost holding 126 (5040 bytes).
/// Also loses 16 unrelated 24-byte blocks (lose_small), so the tree's
/// root is not the only definitely lost group. Returns 0.
int victim_lost_tree(void);

/// cyclic-list: a 12-node circular singly linked list of 64-byte nodes
/// (make_cycle), dropped: no node is unreferenced; the first allocated
/// leads the cycle, 1 block definitely lost holding 11 (704 bytes). Returns 0.
int victim_lost_cyclic_list(void);

/// suppressed-tree: writes tree.supp (`leak:suppressed_tree_root`) into
/// the working directory and re-runs itself as `suppressed-tree-run` with
/// FAULTLINE_SUPPRESSIONS pointing at it. Returns only on failure (2).
int victim_suppressed_tree(const char *self);

/// suppressed-tree-run: a 7-node tree whose root comes from
/// suppressed_tree_root and whose 6 other nodes from tree_child, called
/// from outside it (their stacks do not match the suppression), dropped;
/// and one 91-byte block lost in lose_other.
/// Returns 0.
int victim_suppressed_tree_run(void);

#endif
