// victim-leak stale-frame: an allocation made while %rbp points at a frame
// record whose return address lies in the malloc shim's own code, as a
// function built without frame pointers can leave it (a dead record from
// an earlier, deeper call into the shim). The 88-byte block is then lost.
#include "stale_frame.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

__attribute__((noinline)) static void lose_under_stale_record(void) {
    void *(*shim_malloc)(size_t) = (void *(*)(size_t))dlsym(RTLD_DEFAULT, "malloc");
    // The record: saved frame pointer 0 (the walk ends after it), return
    // address one byte into the shim's malloc.
    volatile uintptr_t record[2] = {0, (uintptr_t)shim_malloc + 1};
    void *p;
#if defined(__x86_64__)
    __asm__ volatile(
        "push %%rbp\n\t"
        "sub $8, %%rsp\n\t"  // keep the stack 16-byte aligned at the call
        "mov %[record], %%rbp\n\t"
        "mov $88, %%edi\n\t"
        "call *%[fn]\n\t"
        "add $8, %%rsp\n\t"
        "pop %%rbp"
        : "=a"(p)
        : [record] "r"(record), [fn] "r"(shim_malloc)
        : "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "memory", "cc");
#else
    p = shim_malloc(88);
#endif
    ((volatile char *)p)[0] = 1;
    p = 0;
}

int victim_stale_frame(void) {
    lose_under_stale_record();
    printf("victim: lost an 88-byte block allocated under a stale frame record\n");
    return 0;
}
