// Describing the exception being handled: type (demangled), what() for
// std::exception, a readable value for other throws, nested exceptions.
// The agent's describer library (cxx_describer.h): loaded only into a
// process that has libstdc++, so the agent itself links no C++ runtime.
// Runs in the terminate handler — not a signal handler — and uses the C++
// runtime itself: `throw;` to let catch clauses find the dynamic type,
// std::rethrow_exception for nested levels. Text goes into preallocated
// storage; the only allocations are the runtime's own (a dependent
// exception header per nested level, from its emergency pool when malloc
// fails) and __cxa_demangle's, which is skipped for std::bad_alloc.
#include "cxx_exception_info.h"

#include <cxxabi.h>
#include <exception>
#include <new>
#include <string>
#include <typeinfo>

#include <stdlib.h>
#include <string.h>

namespace {

void copy_text(const char *s, size_t len, char *out, size_t *out_len, int *truncated) {
    if (len > FL_CXX_TEXT_MAX - 1) { len = FL_CXX_TEXT_MAX - 1; *truncated = 1; }
    memcpy(out, s, len);
    out[len] = 0;
    *out_len = len;
}

// strlen bounded by the buffer: a thrown `const char*` is read only this far.
size_t bounded_strlen(const char *s) {
    size_t n = 0;
    while (n < FL_CXX_TEXT_MAX && s[n]) n++;
    return n;
}

void set_message(fl_cxx_exception_level *L, const char *what) {
    if (!what) return;
    L->has_message = 1;
    copy_text(what, bounded_strlen(what), L->message, &L->message_len, &L->message_truncated);
}

void set_value(fl_cxx_exception_level *L, const char *s, size_t len) {
    L->has_value = 1;
    copy_text(s, len, L->value, &L->value_len, &L->value_truncated);
}

void set_unsigned(fl_cxx_exception_level *L, unsigned long long v, bool negative) {
    char buf[24];
    char *p = buf + sizeof buf;
    do { *--p = (char)('0' + v % 10); v /= 10; } while (v);
    if (negative) *--p = '-';
    set_value(L, p, (size_t)(buf + sizeof buf - p));
}

void set_signed(fl_cxx_exception_level *L, long long v) {
    if (v < 0) set_unsigned(L, 0ull - (unsigned long long)v, true);
    else set_unsigned(L, (unsigned long long)v, false);
}

// Readable, not exact: nine significant digits, no stdio (glibc's printf may
// allocate for wide conversions).
void set_double(fl_cxx_exception_level *L, long double lv) {
    double v = (double)lv;
    char buf[64];
    size_t n = 0;
    if (v != v) { set_value(L, "nan", 3); return; }
    if (v < 0) { buf[n++] = '-'; v = -v; }
    if (v > 1.7976931348623157e308) { memcpy(buf + n, "inf", 3); set_value(L, buf, n + 3); return; }
    int exp10 = 0;
    if (v != 0 && (v >= 1e15 || v < 1e-4)) {
        while (v >= 10) { v /= 10; exp10++; }
        while (v < 1) { v *= 10; exp10--; }
    }
    unsigned long long whole = (unsigned long long)v;
    unsigned long long frac = (unsigned long long)((v - (double)whole) * 1e9 + 0.5);
    if (frac >= 1000000000ull) { whole++; frac -= 1000000000ull; }
    char digits[24];
    int d = 0;
    do { digits[d++] = (char)('0' + whole % 10); whole /= 10; } while (whole);
    while (d) buf[n++] = digits[--d];
    if (frac) {
        buf[n++] = '.';
        char f[9];
        for (int i = 8; i >= 0; i--) { f[i] = (char)('0' + frac % 10); frac /= 10; }
        int last = 8;
        while (last > 0 && f[last] == '0') last--;
        for (int i = 0; i <= last; i++) buf[n++] = f[i];
    }
    if (exp10) {
        buf[n++] = 'e';
        if (exp10 < 0) { buf[n++] = '-'; exp10 = -exp10; }
        char e[8];
        int k = 0;
        do { e[k++] = (char)('0' + exp10 % 10); exp10 /= 10; } while (exp10);
        while (k) buf[n++] = e[--k];
    }
    set_value(L, buf, n);
}

// Names of the types thrown when the heap is exhausted, for when
// __cxa_demangle is not an option.
const struct { const char *mangled, *name; } k_heap_types[] = {
    {"St9bad_alloc", "std::bad_alloc"},
    {"St20bad_array_new_length", "std::bad_array_new_length"},
};

void set_type(fl_cxx_exception_level *L, const char *mangled, bool demangle) {
    strncpy(L->type_mangled, mangled, FL_CXX_TYPE_MAX - 1);
    L->type_mangled[FL_CXX_TYPE_MAX - 1] = 0;
    for (const auto &k : k_heap_types) {
        if (strcmp(mangled, k.mangled) == 0) {
            strcpy(L->type, k.name);
            return;
        }
    }
    if (demangle) {
        int status = -1;
        char *d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
        if (d && status == 0) {
            strncpy(L->type, d, FL_CXX_TYPE_MAX - 1);
            L->type[FL_CXX_TYPE_MAX - 1] = 0;
            free(d);
            return;
        }
        free(d);
    }
    memcpy(L->type, L->type_mangled, FL_CXX_TYPE_MAX);
}

void clear_level(fl_cxx_exception_level *L) {
    L->type[0] = L->type_mangled[0] = L->message[0] = L->value[0] = 0;
    L->has_message = L->has_value = L->message_truncated = L->value_truncated = L->foreign = 0;
    L->message_len = L->value_len = 0;
    L->object = nullptr;
    L->has_thrown = L->has_rethrown = 0;
}

// The thrown object of the exception being handled, or null (none, or a
// foreign exception). The agent's current_exception hook passes the call
// on: it publishes nothing while the terminate handler runs (frozen).
const void *current_object(void) {
    // libstdc++ and libc++ both keep the thrown object's address as the one
    // member of exception_ptr (the pointer __cxa_throw received).
    static_assert(sizeof(std::exception_ptr) == sizeof(void *), "exception_ptr is one pointer");
    std::exception_ptr p = std::current_exception();
    const void *object = nullptr;
    memcpy(&object, static_cast<const void *>(&p), sizeof object);
    return object;
}

void describe_level(fl_cxx_exception_info *info, int depth, bool demangle) {
    if (depth >= FL_CXX_MAX_LEVELS) { info->nested_truncated = 1; return; }
    fl_cxx_exception_level *L = &info->level[depth];
    clear_level(L);
    info->levels = depth + 1;
    L->object = current_object();
    if (!L->object) {
        // current_exception() is empty for a foreign exception; its
        // "type" would be read from a header it does not have.
        L->foreign = 1;
        return;
    }
    std::type_info *type = abi::__cxa_current_exception_type();
    bool heap_exhausted = false;
    const std::nested_exception *nested = nullptr;
    try {
        throw;
    } catch (const std::bad_alloc &e) {
        heap_exhausted = true;
        set_message(L, e.what());
        nested = dynamic_cast<const std::nested_exception *>(&e);
    } catch (const std::exception &e) {
        set_message(L, e.what());
        nested = dynamic_cast<const std::nested_exception *>(&e);
    } catch (const std::nested_exception &e) {
        nested = &e;
    } catch (const std::string &s) {
        set_value(L, s.data(), s.size());
    } catch (const char *s) {
        if (s) set_value(L, s, bounded_strlen(s)); else set_value(L, "(null)", 6);
    } catch (bool v) {
        if (v) set_value(L, "true", 4); else set_value(L, "false", 5);
    } catch (char v) { set_signed(L, v);
    } catch (signed char v) { set_signed(L, v);
    } catch (unsigned char v) { set_unsigned(L, v, false);
    } catch (short v) { set_signed(L, v);
    } catch (unsigned short v) { set_unsigned(L, v, false);
    } catch (int v) { set_signed(L, v);
    } catch (unsigned v) { set_unsigned(L, v, false);
    } catch (long v) { set_signed(L, v);
    } catch (unsigned long v) { set_unsigned(L, v, false);
    } catch (long long v) { set_signed(L, v);
    } catch (unsigned long long v) { set_unsigned(L, v, false);
    } catch (float v) { set_double(L, v);
    } catch (double v) { set_double(L, v);
    } catch (long double v) { set_double(L, v);
    } catch (...) {
    }
    // The heap is what failed for bad_alloc: __cxa_demangle would need it.
    set_type(L, type ? type->name() : "", demangle && !heap_exhausted);
    if (heap_exhausted) info->demangled = 0;
    if (nested && nested->nested_ptr()) {
        try {
            std::rethrow_exception(nested->nested_ptr());
        } catch (...) {
            describe_level(info, depth + 1, demangle);
        }
    }
}

}  // namespace

extern "C" void fl_cxx_describe_current(fl_cxx_exception_info *info, int demangle) {
    info->levels = 0;
    info->nested_truncated = 0;
    info->demangled = demangle != 0;
    // No current exception at all: std::terminate() called directly.
    info->active = abi::__cxa_current_exception_type() != nullptr;
    if (!info->active) return;
    describe_level(info, 0, demangle != 0);
}
