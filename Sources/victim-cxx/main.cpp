// victim-cxx: one uncaught C++ exception per subcommand (see victim_cases.h),
// and C++ leaks for the shim's leak check (`leak-*`, see leak_cases.cpp).
// This program does not link the agent: it is the unmodified binary that
// `faultline exec` (LD_PRELOAD) injects into.
#include "leak_cases.h"
#include "victim_cases.h"

int main(int argc, char **argv) {
    if (argc >= 2 && !strncmp(argv[1], "leak-", 5)) return victim_leak_main(argc, argv);
    return victim_main(argc, argv);
}
