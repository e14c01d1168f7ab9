// victim-leak no-frame-pointer: a block allocated by a function that keeps
// no frame pointer and uses %rbp for data, as Debian's perl, groff and
// python do in their allocation wrappers (Perl_safesysmalloc, groff's own
// operator new). A frame-pointer walk cannot leave frame 0 there; the
// function has call-frame information, so a DWARF unwinder can. The
// 72-byte block is then lost, and so is a string strdup'ed by a second
// such function (libc allocates it, inside the shim's strdup wrapper:
// more frames between the allocator and the program), and a 24-byte
// block allocated by a third one whose %rbp points at data in its own
// frame that looks like a frame record, with a heap address where the
// return address would be (ld.gold and the Swift front end got a `?`
// frame 1 that way).
#include "no_frame_pointer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
// Written in assembly: the compiler would keep the frame pointer the
// victims are built with. NO_FRAME_POINTER_CALLER(name, callee) defines
// `name`, which passes its arguments on to `callee`: %rbp is saved (it is
// callee-saved), described by CFI, and loaded with a number that is no
// frame record's address.
#define NO_FRAME_POINTER_CALLER(name, callee)      \
    __asm__(".text\n"                              \
            ".globl " #name "\n"                   \
            ".type " #name ", @function\n"         \
            #name ":\n"                            \
            ".cfi_startproc\n"                     \
            "    push %rbp\n"                      \
            ".cfi_def_cfa_offset 16\n"             \
            ".cfi_offset %rbp, -16\n"              \
            "    mov $0x5eed, %ebp\n"              \
            "    call " #callee "@PLT\n"           \
            "    pop %rbp\n"                       \
            ".cfi_def_cfa_offset 8\n"              \
            "    ret\n"                            \
            ".cfi_endproc\n"                       \
            ".size " #name ", .-" #name "\n");

void *victim_alloc_without_frame_pointer(size_t size);
NO_FRAME_POINTER_CALLER(victim_alloc_without_frame_pointer, malloc)

char *victim_strdup_without_frame_pointer(const char *text);
NO_FRAME_POINTER_CALLER(victim_strdup_without_frame_pointer, strdup)

void *victim_alloc_with_data_in_rbp(size_t size, void *data);
__asm__(
    ".text\n"
    ".globl victim_alloc_with_data_in_rbp\n"
    ".type victim_alloc_with_data_in_rbp, @function\n"
    "victim_alloc_with_data_in_rbp:\n"
    ".cfi_startproc\n"
    "    push %rbp\n"
    ".cfi_def_cfa_offset 16\n"
    ".cfi_offset %rbp, -16\n"
    "    sub $16, %rsp\n"
    ".cfi_def_cfa_offset 32\n"
    "    movq $0, (%rsp)\n"       // a "saved frame pointer" that ends a walk
    "    mov %rsi, 8(%rsp)\n"     // and a heap address as its "return address"
    "    mov %rsp, %rbp\n"
    "    call malloc@PLT\n"
    "    add $16, %rsp\n"
    ".cfi_def_cfa_offset 16\n"
    "    pop %rbp\n"
    ".cfi_def_cfa_offset 8\n"
    "    ret\n"
    ".cfi_endproc\n"
    ".size victim_alloc_with_data_in_rbp, .-victim_alloc_with_data_in_rbp\n");
#else
static void *victim_alloc_without_frame_pointer(size_t size) { return malloc(size); }
static void *victim_alloc_with_data_in_rbp(size_t size, void *data) { (void)data; return malloc(size); }
static char *victim_strdup_without_frame_pointer(const char *text) { return strdup(text); }
#endif

__attribute__((noinline)) static void lose_through_no_frame_pointer(void) {
    volatile char *p = victim_alloc_without_frame_pointer(72);
    p[0] = 1;
    p = 0;
    // 43 bytes with its terminator.
    volatile char *s = victim_strdup_without_frame_pointer("a string strdup'ed without a frame pointer");
    s[0] = 'A';
    s = 0;
    void *data = malloc(16);
    volatile char *q = victim_alloc_with_data_in_rbp(24, data);
    free(data);
    q[0] = 1;
    q = 0;
}

int victim_no_frame_pointer(void) {
    lose_through_no_frame_pointer();
    printf("victim: lost a 72-byte block, a 43-byte string and a 24-byte block allocated without a frame pointer\n");
    return 0;
}
