// victim-cxx's `heap-cookie-string-delete-array`: a single std::string from
// scalar new released with delete[]. std::string has a destructor, so
// delete[] reads an element count from the 8 bytes in front of the pointer
// (the Itanium ABI's array cookie, which scalar new never wrote) and runs
// that many destructors from the last element down: natively and under the
// shim the first one is on a wild address and the program dies (SIGSEGV).
// The crash report is to name the block and the mismatch.
#include <stdio.h>
#include <string.h>

#include <string>

namespace {
__attribute__((noinline)) std::string *victim_new_string() { return new std::string("a string on the heap"); }
__attribute__((noinline)) void victim_delete_array_string(std::string *s) { delete[] s; }
}  // namespace

/// Runs `heap-cookie-string-delete-array`; other commands: -1.
int victim_cookie_main(int argc, char **argv) {
    if (argc < 2 || strcmp(argv[1], "heap-cookie-string-delete-array") != 0) return -1;
    std::string *s = victim_new_string();
    fprintf(stderr, "victim: delete[] of a std::string from scalar new\n");
    victim_delete_array_string(s);
    printf("victim: still running\n");
    return 0;
}
