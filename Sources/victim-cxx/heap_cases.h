#ifndef VICTIM_CXX_HEAP_CASES_H
#define VICTIM_CXX_HEAP_CASES_H

/// Runs a `heap-*` command (see heap_cases.cpp); returns the exit status.
int victim_heap_main(int argc, char **argv);

#endif
