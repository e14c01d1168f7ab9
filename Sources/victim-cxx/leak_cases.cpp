// victim-cxx leak commands, for the malloc shim's leak check and its
// suppressions, which also match demangled C++ names:
//   leak-two             loses a 64-byte block from acme::ledger::Cache::grow
//                        and a 48-byte one from acme::ledger::Journal::append
//   leak-two-suppressed  writes leaks.supp naming acme::ledger::Cache::grow
//                        (a demangled name: no symbol in the binary contains
//                        it) and runs itself again as leak-two with
//                        FAULTLINE_SUPPRESSIONS naming the file
#include "leak_cases.h"
#include "victim_leak_check.h"

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace acme::ledger {
struct Cache {
    __attribute__((noinline)) static char *grow(unsigned long n);
};
struct Journal {
    __attribute__((noinline)) static char *append();
};

char *Cache::grow(unsigned long n) {
    char *p = new char[n];
    memset(p, 1, n);
    return p;
}

char *Journal::append() {
    char *p = new char[48];
    memset(p, 2, 48);
    return p;
}
}  // namespace acme::ledger

__attribute__((noinline)) static int lose_two() {
    int sum = acme::ledger::Cache::grow(64)[0] + acme::ledger::Journal::append()[0];
    return sum;
}

int victim_leak_main(int argc, char **argv) {
    const char *c = argv[1];
    if (!strcmp(c, "leak-two")) {
        int sum = lose_two();
        victim_clear_stack();
        printf("victim: lost a 64-byte and a 48-byte block (%d)\n", sum);
        return 0;
    }
    if (!strcmp(c, "leak-two-suppressed")) {
        FILE *f = fopen("leaks.supp", "w");
        if (!f) { perror("victim: leaks.supp"); return 2; }
        fputs("# a demangled C++ name: no symbol in the binary contains it\nleak:acme::ledger::Cache::grow\n", f);
        fclose(f);
        char path[PATH_MAX];
        if (!getcwd(path, sizeof path - 16)) return 2;
        strcat(path, "/leaks.supp");
        setenv("FAULTLINE_SUPPRESSIONS", path, 1);
        execl("/proc/self/exe", argv[0], "leak-two", (char *)nullptr);
        perror("victim: exec");
        return 2;
    }
    fprintf(stderr, "%s: unknown command '%s' (leak-two, leak-two-suppressed)\n", argv[0], c);
    (void)argc;
    return 2;
}
