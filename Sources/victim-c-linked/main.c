// victim-c-linked: a C program that links the agent and installs it through
// the C API, as an application would; it adds its own fields to the report
// through a crash callback, then crashes.
#include "faultline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int *volatile g_null;

// Runs on the crash path: only async-signal-safe calls.
static void add_build_info(faultline_writer *w, void *ctx) {
    faultline_writer_add_string(w, "build", (const char *)ctx);
    faultline_writer_add_string(w, "user_action", "checkout");
}

__attribute__((noinline)) static void linked_null_deref(void) {
    fprintf(stderr, "victim: linked program dereferencing NULL\n");
    *g_null = 1;
}

int main(int argc, char **argv) {
    faultline_options options;
    memset(&options, 0, sizeof options);  // report_dir from FAULTLINE_REPORT_DIR
    if (faultline_install(&options) != 0) {
        fprintf(stderr, "victim-c-linked: %s\n", faultline_last_error());
        return 3;
    }
    faultline_set_crash_callback(add_build_info, (void *)"1.4.2-ci");
    if (argc > 1 && strcmp(argv[1], "exit") == 0) return 0;
    linked_null_deref();
    return 1;
}
