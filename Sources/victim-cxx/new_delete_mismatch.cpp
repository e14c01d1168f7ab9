// victim-cxx new-delete type mismatches: a sized or aligned delete given
// another size or alignment than its block's new (AddressSanitizer's
// new-delete-type-mismatch). Each allocation and release is a named,
// non-inlined function so scenarios can expect it as frame 0 of a stack.
// Built with -fsized-deallocation (Package.swift): `delete` of a complete
// type passes its size.
//
//   new-delete-size              a Circle (40 bytes) deleted through a
//                                Shape* (4 bytes, no virtual destructor)
//   new-delete-array-size        WideCell[4] deleted with delete[] through
//                                a Cell*: size 24 (cookie + 4 Cells) of 72
//   new-delete-alignment         new aligned to 64 released with a sized,
//                                unaligned delete; then a plain new
//                                released with an aligned delete (two
//                                reports)
//   new-delete-every-mismatch    the three above in turn
//   new-delete-matched           sized and aligned deletes that fit their
//                                blocks, as correct programs make them:
//                                no report, exits 0
//
// Each prints "victim: still running" and exits 0 after its releases.
#include "new_delete_mismatch.h"

#include <stdio.h>
#include <string.h>

#include <memory>
#include <new>
#include <string>
#include <vector>

#define NDT_NOINLINE __attribute__((noinline))

// The wrong deletes are the point.
#pragma clang diagnostic ignored "-Wdelete-non-abstract-non-virtual-dtor"

namespace {
struct Shape {
    int id = 1;  // no virtual destructor: `delete shape` is Shape's size
};
struct Circle : Shape {
    double radius[4] = {1, 2, 3, 4};
};
static_assert(sizeof(Shape) == 4 && sizeof(Circle) == 40, "the scenario's sizes");

struct Cell {
    int v = 2;
    ~Cell() { v = 0; }  // not trivial: new[] puts the count (8 bytes) in front
};
struct WideCell : Cell {
    char pad[12] = {};
};
static_assert(sizeof(Cell) == 4 && sizeof(WideCell) == 16, "the scenario's sizes");

struct alignas(64) CacheLine {
    char bytes[64];
};

struct alignas(64) LineWithDtor {
    char bytes[64];
    ~LineWithDtor() { bytes[0] = 0; }
};

struct Base {
    virtual ~Base() = default;
    int b = 3;
};
struct Derived : Base {
    char extra[100] = {};
};
}  // namespace

NDT_NOINLINE Shape *victim_make_circle() { return new Circle; }
NDT_NOINLINE void victim_delete_shape(Shape *s) { delete s; }  // operator delete(s, 4)
NDT_NOINLINE Cell *victim_make_cells() { return new WideCell[4]; }
NDT_NOINLINE void victim_delete_cells(Cell *c) { delete[] c; }  // operator delete[](c - 8, 8 + 4 * 4)
NDT_NOINLINE void *victim_new_aligned_line() { return ::operator new(sizeof(CacheLine), std::align_val_t(64)); }
NDT_NOINLINE void victim_delete_line_unaligned(void *p) { ::operator delete(p, sizeof(CacheLine)); }
NDT_NOINLINE void *victim_new_plain(size_t n) { return ::operator new(n); }
NDT_NOINLINE void victim_delete_aligned(void *p) { ::operator delete(p, std::align_val_t(32)); }

NDT_NOINLINE static void size_case() { victim_delete_shape(victim_make_circle()); }
NDT_NOINLINE static void array_case() { victim_delete_cells(victim_make_cells()); }
NDT_NOINLINE static void alignment_case() {
    victim_delete_line_unaligned(victim_new_aligned_line());
    victim_delete_aligned(victim_new_plain(32));
}

// Sized and aligned deletes that fit: what the compiler and libstdc++
// emit for correct code, and the explicit calls allocators make.
NDT_NOINLINE static int matched() {
    Base *b = new Derived;  // virtual destructor: the deleting destructor passes sizeof(Derived)
    delete b;
    delete new Circle;
    delete[] new Cell[5];  // sized delete[] with the cookie, as new[] was given
    delete[] new WideCell[0];
    WideCell *wide = new WideCell[3];
    delete[] wide;
    delete new CacheLine;  // sized and aligned
    delete[] new CacheLine[3];  // aligned (no cookie: no size)
    delete[] new LineWithDtor[2];  // sized (cookie padded to 64) and aligned
    struct Empty {};
    delete new Empty;  // size 1
    delete new (std::nothrow) Circle;
    // As LLVM's allocate_buffer / deallocate_buffer: aligned to 8, both ends.
    void *buffer = ::operator new(48, std::align_val_t(8));
    ::operator delete(buffer, 48, std::align_val_t(8));
    // new(0) is served as one byte; delete is given the 0 new was.
    ::operator delete(::operator new(0), size_t{0});
    ::operator delete[](::operator new[](24, std::align_val_t(128)), 24, std::align_val_t(128));
    ::operator delete(::operator new(16, std::nothrow), std::nothrow);
    std::vector<CacheLine> lines(3);
    lines.resize(40);
    std::vector<std::string> words;
    for (int i = 0; i < 50; i++) words.push_back(std::string(30 + i, 'w'));
    delete[] new std::string[4];
    std::unique_ptr<Base> owned = std::make_unique<Derived>();
    auto shared = std::make_shared<Derived>();
    printf("victim: every sized and aligned delete fits its new\n");
    return 0;
}

namespace {
struct nd_case {
    const char *command;
    void (*run)();
    const char *says;
};
void every_case() {
    size_case();
    array_case();
    alignment_case();
}
const nd_case g_nd_cases[] = {
    {"new-delete-size", size_case, "a Circle deleted through a Shape*"},
    {"new-delete-array-size", array_case, "WideCell[4] deleted through a Cell*"},
    {"new-delete-alignment", alignment_case, "aligned new with an unaligned delete, and the reverse"},
    {"new-delete-every-mismatch", every_case, "every new-delete type mismatch"},
};
}  // namespace

int victim_new_delete_main(int argc, char **argv) {
    (void)argc;
    const char *c = argv[1];
    if (!strcmp(c, "new-delete-matched")) return matched();
    for (const nd_case &m : g_nd_cases) {
        if (strcmp(c, m.command)) continue;
        fprintf(stderr, "victim: %s\n", m.says);
        m.run();
        printf("victim: still running\n");
        return 0;
    }
    fprintf(stderr, "victim-cxx: unknown new-delete command '%s'\n", c);
    return 2;
}
