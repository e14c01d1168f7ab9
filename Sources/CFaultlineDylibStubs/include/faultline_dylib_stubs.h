// Stand-ins for the two Swift runtime symbols SwiftPM's swiftrt.o references,
// so the injectable libraries do not depend on libswiftCore.so.
#ifndef FAULTLINE_DYLIB_STUBS_H
#define FAULTLINE_DYLIB_STUBS_H

/// Returns 1; exists so the target is never empty.
int faultline_dylib_stubs_linked(void);

#endif
