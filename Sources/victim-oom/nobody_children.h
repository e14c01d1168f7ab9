#ifndef VICTIM_NOBODY_CHILDREN_H
#define VICTIM_NOBODY_CHILDREN_H

/// As root, below a report directory only root may write: a child forked
/// as root becomes nobody for a while (seteuid) and _exits, then the
/// parent becomes nobody for a while and forks a child that _exits.
/// Says whether each child's breadcrumb file was made and removed; exits
/// 0 when both were, 1 otherwise, 2 when it cannot run.
void victim_nobody_children(void);

#endif
