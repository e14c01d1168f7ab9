#ifndef VICTIM_CXX_NEW_DELETE_MISMATCH_H
#define VICTIM_CXX_NEW_DELETE_MISMATCH_H

/// Runs a `new-delete-*` command (see new_delete_mismatch.cpp); returns the exit status.
int victim_new_delete_main(int argc, char **argv);

#endif
