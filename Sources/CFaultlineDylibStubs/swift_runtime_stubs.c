// Linked only into the two LD_PRELOAD libraries, never into a program.
//
// SwiftPM links every product with swiftrt.o, whose start-up code calls
// swift_addNewDSOImage (and references _swift_backtrace_isThunkFunction).
// Those references alone would make libFaultlineAgentPreload.so and
// libFaultlineMallocShim.so depend on libswiftCore.so, so preloading them into
// a plain C program would load the Swift runtime and its backtracer (which
// installs crash handlers of its own). These hidden no-ops satisfy the
// references inside each library, so scripts/drop-swift-runtime-dependency
// can remove the now-unused libswiftCore.so entry after `swift build`. Our libraries contain no Swift metadata, so
// registering nothing is correct. Hidden visibility keeps them from ever
// interposing the real runtime in a Swift program.
#include "faultline_dylib_stubs.h"

__attribute__((visibility("hidden"))) void swift_addNewDSOImage(const void *sections) { (void)sections; }

__attribute__((visibility("hidden"))) int _swift_backtrace_isThunkFunction(const char *name) {
    (void)name;
    return 0;
}

int faultline_dylib_stubs_linked(void) { return 1; }
