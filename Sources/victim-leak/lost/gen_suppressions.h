// victim-leak's gen-suppressions commands (gen_suppressions.c).
#ifndef VICTIM_LEAK_GEN_SUPPRESSIONS_H
#define VICTIM_LEAK_GEN_SUPPRESSIONS_H

/// gen-suppressions first|all: loses a 5-node list (gen_lose_list: its
/// head, which holds the 4 others), a 300-byte block (gen_lose_block), and
/// frees a block twice (gen_free_twice; run with FAULTLINE_HALT_ON_ERROR=0).
/// `all` also loses 91 bytes in gen_lose_extra and frees a pointer into a
/// block (gen_free_inside, an invalid_free). Returns 0.
int victim_gen_suppressions(const char *which);

/// gen-suppressions-round-trip: runs `gen-suppressions first` with
/// FAULTLINE_GEN_SUPPRESSIONS=1 and its reports in ./first-reports, keeps
/// the lines it printed after each `# faultline --gen-suppressions`
/// comment (the comment and the suppression) in ./generated.supp, then runs
/// `gen-suppressions all` with FAULTLINE_SUPPRESSIONS=generated.supp,
/// whose reports are the scenario's. Returns the second run's status.
int victim_gen_suppressions_round_trip(const char *self);

#endif
