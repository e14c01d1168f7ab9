#ifndef VICTIM_OWN_NEW_LIB_H
#define VICTIM_OWN_NEW_LIB_H

#ifdef __cplusplus
extern "C" {
#endif

/// new int(4) inside the library: its own operator new (bound inside it by
/// -Bsymbolic-functions), which serves a static pool.
int *own_new_library_make(void);

#ifdef __cplusplus
}
#endif

#endif
