// The hang detector's pure pieces, compiled apart for the C unit tests:
// the agent's target cannot link into a test process (its constructor
// installs the agent and its interposers replace libc's), so this target
// builds the agent's own source files, not copies of them.
#ifndef FL_HANG_UNDER_TEST_H
#define FL_HANG_UNDER_TEST_H

#include "../../../Sources/CFaultlineAgent/hang/deadlock_graph.h"

#endif
