#include "victim_cases.h"

#include <stdio.h>
#include <string.h>

int victim_fault_missed(void) {
    fprintf(stderr, "victim: the fault did not happen\n");
    return 1;
}

static void usage(const char *victim, const victim_case *cases, size_t count) {
    fprintf(stderr, "usage: %s COMMAND\ncommands:\n", victim);
    for (size_t i = 0; i < count; i++) fprintf(stderr, "  %-32s %s\n", cases[i].name, cases[i].help);
}

int victim_run_case_or(int usage_status, const char *victim, const victim_case *cases, size_t count, int argc, char **argv, char **envp) {
    if (argc < 2) { usage(victim, cases, count); return usage_status; }
    for (size_t i = 0; i < count; i++) {
        if (strcmp(argv[1], cases[i].name) != 0) continue;
        if (cases[i].run) return cases[i].run(argc, argv, envp);
        if (cases[i].call) return cases[i].call();
        cases[i].fault();
        return victim_fault_missed();
    }
    fprintf(stderr, "%s: unknown command '%s'\n", victim, argv[1]);
    usage(victim, cases, count);
    return usage_status;
}

int victim_run_case(const char *victim, const victim_case *cases, size_t count, int argc, char **argv, char **envp) {
    return victim_run_case_or(2, victim, cases, count, argc, argv, envp);
}
