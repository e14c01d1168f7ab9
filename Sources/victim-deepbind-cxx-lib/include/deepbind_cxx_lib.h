#ifndef VICTIM_DEEPBIND_CXX_LIB_H
#define VICTIM_DEEPBIND_CXX_LIB_H

#ifdef __cplusplus
extern "C" {
#endif

/// new int[4] and new int, inside the library (libstdc++'s operators, which
/// its RTLD_DEEPBIND scope binds before the shim's).
int *deepbind_cxx_new_array(void);
int *deepbind_cxx_new(void);
/// delete[] and delete, inside the library.
void deepbind_cxx_delete_array(int *p);
void deepbind_cxx_delete(int *p);

#ifdef __cplusplus
}
#endif

#endif
