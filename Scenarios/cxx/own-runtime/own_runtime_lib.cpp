// A library that carries its own C++ runtime (-static-libstdc++): loaded
// with RTLD_LOCAL into a C program that has none, its throw and catch
// bind to the agent's hooks, which must pass them to the library's own
// runtime functions (scenario cxx.own-runtime-library).
#include <stdexcept>

extern "C" int own_runtime_throw_caught(void) {
    try {
        throw std::runtime_error("caught inside a library with its own runtime");
    } catch (const std::runtime_error &) {
        return 1;
    }
    return 0;
}
