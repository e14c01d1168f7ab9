// victim-cxx-linked: the victim-cxx cases in a program that links the
// agent and installs it through the C API before anything throws. Here the
// agent's __cxa_throw is defined in the executable itself, which interposes
// the C++ runtime's for the program and for libstdc++'s internal throws.
#include "faultline.h"

#include "../victim-cxx/victim_cases.h"

int main(int argc, char **argv) {
    faultline_options options;
    memset(&options, 0, sizeof options);  // everything from FAULTLINE_* variables
    if (faultline_install(&options) != 0) {
        fprintf(stderr, "victim-cxx-linked: %s\n", faultline_last_error());
        return 3;
    }
    return victim_main(argc, argv);
}
