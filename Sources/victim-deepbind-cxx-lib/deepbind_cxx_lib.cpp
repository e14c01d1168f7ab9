// A C++ library for victim-cxx deepbind-cxx: loaded with RTLD_DEEPBIND, its
// new and delete bind to libstdc++'s operators, not the shim's; those call
// the shim's malloc and base operators (new[] calls new, delete[] delete).
#include "deepbind_cxx_lib.h"

int *deepbind_cxx_new_array(void) { return new int[4]; }
int *deepbind_cxx_new(void) { return new int(7); }
void deepbind_cxx_delete_array(int *p) { delete[] p; }
void deepbind_cxx_delete(int *p) { delete p; }
