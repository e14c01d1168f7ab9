// The agent's wait-for graph, as the agent builds it (see hang_under_test.h).
#include "../../Sources/CFaultlineAgent/hang/deadlock_graph.c"
