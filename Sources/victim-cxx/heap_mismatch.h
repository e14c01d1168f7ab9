#ifndef VICTIM_CXX_HEAP_MISMATCH_H
#define VICTIM_CXX_HEAP_MISMATCH_H

/// Runs a `heap-mismatch-*` command (see heap_mismatch.cpp); returns the exit status.
int victim_mismatch_main(int argc, char **argv);

#endif
