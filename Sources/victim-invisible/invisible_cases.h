// The cases of victim-invisible, one file per concern.
#ifndef INVISIBLE_CASES_H
#define INVISIBLE_CASES_H

#include <stddef.h>

/// This executable's path into `buf`; 0 or -1.
int invisible_self(char *buf, size_t cap);

int invisible_exec_self(int argc, char **argv);          // under_exec.c
int invisible_script_self(int argc, char **argv);
int invisible_stderr_compare(int argc, char **argv);     // stderr_compare.c
int invisible_child_leak(int argc, char **argv);
int invisible_child_crash(int argc, char **argv);
int invisible_child_write_after_free(int argc, char **argv);
int invisible_isatty(int argc, char **argv);             // terminal.c
int invisible_close_all(int argc, char **argv);          // close_all.c
int invisible_exit_leak(int argc, char **argv);          // exit_leak.c
int invisible_compile(int argc, char **argv);            // compile.c
int invisible_list_fds(int argc, char **argv);           // held_fds.c
int invisible_child_after_close_all(int argc, char **argv);
int invisible_raised_limit_child(int argc, char **argv);  // raised_limit.c

#endif
