// victim-cxx: one uncaught C++ exception per subcommand (see victim_cases.h).
// This program does not link the agent: it is the unmodified binary that
// `faultline exec` (LD_PRELOAD) injects into.
#include "victim_cases.h"

int main(int argc, char **argv) { return victim_main(argc, argv); }
