// libFaultlineAgentCxx.so: the C++ half of the agent's uncaught-exception
// detector. Its one entry point, fl_cxx_describe_current, is declared in
// the agent's cxx/cxx_exception_info.h; the agent finds it by dlsym
// (cxx/cxx_describer.h), or at link time in an executable that links this
// target beside the agent.
#ifndef FL_CXX_DESCRIBER_LIBRARY_H
#define FL_CXX_DESCRIBER_LIBRARY_H
#endif
