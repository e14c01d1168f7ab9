// The lost-pairs command of victim-leak (lost_pairs.c).
#ifndef VICTIM_LEAK_LOST_PAIRS_H
#define VICTIM_LEAK_LOST_PAIRS_H

/// Loses two pairs of blocks that point at each other, a 232-byte and a
/// 56-byte one: in the first pair the 232-byte block is allocated first,
/// in the second the 56-byte one. Every block of the first allocation is
/// made by `pair_first`, of the second by `pair_second`. Returns 0.
int victim_lost_pairs(void);

#endif
