// The one table of a victim's cases: adding a case is one function and one
// row (its name, a line of help, and what runs it).
#ifndef VICTIM_CASES_H
#define VICTIM_CASES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One fault a victim injects on command. Exactly one of `fault`, `run` and
/// `call` is set: `fault` injects a fault that ends the process (its return
/// means the fault did not happen: one line and exit 1); `run` reads its
/// own arguments (argv[2] on) and returns the exit status; `call` takes no
/// argument and returns the exit status (most of victim-heap's cases).
typedef struct {
    const char *name;
    const char *help;
    void (*fault)(void);
    int (*run)(int argc, char **argv, char **envp);
    int (*call)(void);
} victim_case;

/// A row for a fault that takes no argument and should not return.
#define VICTIM_FAULT(name, fn, help) {name, help, fn, 0, 0}
/// A row for a case that reads its arguments and returns its exit status.
#define VICTIM_RUN(name, fn, help) {name, help, 0, fn, 0}
/// A row for a case that takes no argument and returns its exit status.
#define VICTIM_CALL(name, fn, help) {name, help, 0, 0, fn}

/// Runs the case `argv[1]` names from `cases` (`count` rows); no or an
/// unknown name: the usage with every case's help on stderr, exit 2.
int victim_run_case(const char *victim, const victim_case *cases, size_t count, int argc, char **argv, char **envp);

/// victim_run_case exiting `usage_status` instead of 2 for no or an unknown
/// name (victim-resources keeps its 64, EX_USAGE).
int victim_run_case_or(int usage_status, const char *victim, const victim_case *cases, size_t count, int argc, char **argv, char **envp);

/// "victim: the fault did not happen" on stderr; returns 1. For `run` cases
/// whose fault returned.
int victim_fault_missed(void);

/// victim_run_case over a table array.
#define VICTIM_MAIN(victim, table, argc, argv, envp) \
    victim_run_case(victim, table, sizeof(table) / sizeof((table)[0]), argc, argv, envp)

#ifdef __cplusplus
}
#endif
#endif
