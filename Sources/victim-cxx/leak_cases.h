#ifndef VICTIM_CXX_LEAK_CASES_H
#define VICTIM_CXX_LEAK_CASES_H

/// Runs a `leak-*` command (see leak_cases.cpp); returns the exit status.
int victim_leak_main(int argc, char **argv);

#endif
