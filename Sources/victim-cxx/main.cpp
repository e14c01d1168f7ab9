// victim-cxx: one uncaught C++ exception per subcommand (see victim_cases.h),
// C++ leaks for the shim's leak check (`leak-*`, see leak_cases.cpp) and
// C++ heap misuse for its other checks (`heap-*`, see heap_cases.cpp).
// This program does not link the agent: it is the unmodified binary that
// `faultline exec` (LD_PRELOAD) injects into.
#include "heap_cases.h"
#include "leak_cases.h"
#include "new_delete_mismatch.h"
#include "victim_cases.h"
#include "victim_suppressions.h"

int victim_deepbind_cxx_main(int argc, char **argv);  // deepbind_pairs.cpp
int victim_own_new_library_main(int argc, char **argv);  // own_new_library.cpp
int victim_churn_rethrow_main(int argc, char **argv);  // churn_rethrow.cpp
int victim_small_altstack_callback_main(int argc, char **argv);  // small_altstack_callback.cpp

int victim_cookie_main(int argc, char **argv);  // heap_cookie.cpp

int main(int argc, char **argv) {
    // `suppressed LINES COMMAND`: COMMAND under a suppressions file of LINES.
    if (argc >= 4 && !strcmp(argv[1], "suppressed")) return victim_rerun_with_suppressions(argv[2], argv[0], argv + 3);
    if (argc >= 2 && !strcmp(argv[1], "deepbind-cxx")) return victim_deepbind_cxx_main(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "own-new-library")) return victim_own_new_library_main(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "churn-rethrow")) return victim_churn_rethrow_main(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "small-altstack-callback-fault")) return victim_small_altstack_callback_main(argc, argv);
    if (argc >= 2 && !strncmp(argv[1], "leak-", 5)) return victim_leak_main(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "heap-cookie-string-delete-array")) return victim_cookie_main(argc, argv);
    if (argc >= 2 && !strncmp(argv[1], "heap-", 5)) return victim_heap_main(argc, argv);
    if (argc >= 2 && !strncmp(argv[1], "new-delete-", 11)) return victim_new_delete_main(argc, argv);
    return victim_main(argc, argv);
}
