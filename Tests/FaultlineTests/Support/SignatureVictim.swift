import Faultline
import Foundation

/// A small C program of the export tests' own, built at test time with the
/// toolchain's clang so that it can be built twice: as is, and with an
/// unrelated function added in front of the one that crashes (a rebuild
/// that moves every offset). It sets its phase and one annotation through
/// the preloaded agent's C API when it finds it. `leaks` loses blocks
/// from two functions: a leak report with two groups.
enum SignatureVictim {
    static let source = #"""
        #include <dlfcn.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #ifdef EXTRA
        __attribute__((noinline)) int unrelated_helper(int x) {
            volatile int a[64];
            for (int i = 0; i < 64; i++) a[i] = x * i;
            return a[x & 63] + a[(x + 7) & 63];
        }
        #endif
        void *volatile g_kept;
        /* Two leak sites: a leak report with two groups. */
        __attribute__((noinline)) void leak_node(void) { g_kept = malloc(48); }
        __attribute__((noinline)) void leak_name(void) { g_kept = malloc(200); }
        __attribute__((noinline)) void crash_here(const char *how) {
            if (strcmp(how, "segv") == 0) *(volatile int *)0 = 1;
            if (strcmp(how, "abort") == 0) abort();
            if (strcmp(how, "double-free") == 0) { char *p = malloc(24); g_kept = p; free(p); free((void *)g_kept); }
            if (strcmp(how, "leak") == 0) for (int i = 0; i < 3; i++) g_kept = malloc(100);
            if (strcmp(how, "leaks") == 0) { leak_node(); leak_name(); }
        }
        int main(int argc, char **argv) {
            int (*set_phase)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT, "faultline_set_phase");
            int (*annotate)(const char *, const char *) = (int (*)(const char *, const char *))dlsym(RTLD_DEFAULT, "faultline_annotate");
            if (argc > 2 && set_phase) set_phase(argv[2]);
            if (annotate) annotate("order", "42");
        #ifdef EXTRA
            printf("helper %d\n", unrelated_helper(argc));
        #endif
            crash_here(argv[1]);
            g_kept = NULL;
            return 0;
        }
        """#

    /// Builds the program into `dir` (`extra`: with the unrelated function).
    static func build(in dir: String, extra: Bool = false) throws -> String {
        let src = "\(dir)/sigvictim.c"
        try source.write(toFile: src, atomically: true, encoding: .utf8)
        let out = "\(dir)/sigvictim\(extra ? "-rebuilt" : "")"
        guard let clang = ToolLocator.find("clang", preferNextTo: "swift") ?? ToolLocator.find("cc") else { throw NoCompiler() }
        let run = try runProgram(clang, ["-O0", "-g", "-fno-omit-frame-pointer", "-Wl,--build-id", "-o", out, src, "-ldl"] + (extra ? ["-DEXTRA"] : []))
        guard run.status == 0, !run.signaled else { throw BuildFailed(output: run.stderr) }
        return out
    }

    struct NoCompiler: Error, CustomStringConvertible { var description: String { "no clang or cc to build the signature victim" } }
    struct BuildFailed: Error, CustomStringConvertible {
        var output: String
        var description: String { "the signature victim did not build: \(output)" }
    }
}
