// Who describes the exception that reached std::terminate. Naming its
// dynamic type's bases, its what(), its value and its nested exceptions
// takes C++ (a rethrow and catch clauses), so that part lives in a library
// of its own that links libstdc++ (libFaultlineAgentCxx.so, beside the
// agent), loaded only into a process that already has libstdc++: a C
// program never pays for a C++ runtime. An executable that links the agent
// and the describer target (victim-cxx-linked) has it built in.
#ifndef FL_CXX_DESCRIBER_H
#define FL_CXX_DESCRIBER_H

#include "cxx_exception_info.h"

#ifdef __cplusplus
extern "C" {
#endif

/// File name of the describer library, looked for beside the agent.
#define FL_CXX_DESCRIBER_LIBRARY "libFaultlineAgentCxx.so"

/// Finds the describer: linked in, or loaded from beside the agent when
/// the process's runtime is libstdc++. Returns 0, or -1 when there is none
/// (fl_cxx_describe then names the type only). Not async-signal-safe.
int fl_cxx_describer_load(void);

/// Fills `info` from the exception being handled: with the describer when
/// one was found, else the mangled type name and the thrown object only
/// (`demangled` 0); then each level's throw and rethrow records.
void fl_cxx_describe(fl_cxx_exception_info *info, int demangle);

#ifdef __cplusplus
}
#endif
#endif
