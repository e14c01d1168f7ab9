// victim-cxx-linked: the victim-cxx cases in a program that links the
// agent and installs it through the C API before anything throws. Here the
// agent's __cxa_throw is defined in the executable itself, which interposes
// the C++ runtime's for the program and for libstdc++'s internal throws.
// The throw-recovered-* commands install their own SIGSEGV handler first.
#include "faultline.h"
#include "throwing_handler.h"

#include "../victim-cxx/victim_cases.h"

int main(int argc, char **argv) {
    bool throwing = argc > 1 && victim_throwing_prepare(argv[1]);
    faultline_options options;
    memset(&options, 0, sizeof options);  // everything from FAULTLINE_* variables
    if (faultline_install(&options) != 0) {
        fprintf(stderr, "victim-cxx-linked: %s\n", faultline_last_error());
        return 3;
    }
    if (throwing) victim_throwing_run(argv[1], argc > 2 ? argv[2] : nullptr);
    return victim_main(argc, argv);
}
