#include "stack_switch.h"
#include "page_size.h"
#include "raw_syscall.h"

#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

void fl_altstack_suspend(void) {
    stack_t off = {0};
    off.ss_flags = SS_DISABLE;
    fl_raw_syscall(SYS_sigaltstack, (long)&off, 0, 0, 0);
}

void fl_altstack_resume(const void *ucv) {
    // SS_ONSTACK in the saved flags (the interrupted code was on it) is
    // taken as "enabled"; SS_DISABLE leaves it off, as it was.
    const ucontext_t *uc = ucv;
    stack_t saved = uc->uc_stack;
    fl_raw_syscall(SYS_sigaltstack, (long)&saved, 0, 0, 0);
}

int fl_stack_map(fl_stack *stack, size_t size) {
    size_t page = fl_page_size();
    size = fl_page_round_up(size);
    // MAP_NORESERVE: pages are only committed if a crash ever touches them.
    char *p = mmap(0, size + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (p == MAP_FAILED) return -1;
    if (mprotect(p, page, PROT_NONE) != 0) {
        int e = errno;
        munmap(p, size + page);
        errno = e;
        return -1;
    }
    stack->lo = p + page;
    stack->hi = p + page + size;
    return 0;
}

// fl_call_on_stack is written in assembly because C cannot move the stack
// pointer. It is an ordinary frame-pointer frame whose CFA is computed from
// the frame pointer, not the stack pointer: after the switch the stack
// pointer is on the new stack while the frame pointer still points at the
// saved frame on the old one, so the CFI below lets any DWARF unwinder (and
// libunwind's fast trace, which classifies it as a standard frame) step from
// `fn`'s frames back to the caller's.
#if defined(__x86_64__)
__asm__(
    ".pushsection .text\n"
    ".globl fl_call_on_stack\n"
    ".hidden fl_call_on_stack\n"
    ".type fl_call_on_stack, @function\n"
    ".p2align 4\n"
    "fl_call_on_stack:\n"
    ".cfi_startproc\n"
#if defined(__CET__)
    "endbr64\n"  // an indirect-branch target when IBT is on
#endif
    "pushq %rbp\n"
    ".cfi_def_cfa_offset 16\n"
    ".cfi_offset %rbp, -16\n"
    "movq %rsp, %rbp\n"
    ".cfi_def_cfa_register %rbp\n"
    "andq $-16, %rdx\n"  // the ABI wants rsp 16-aligned at the call
    "movq %rdx, %rsp\n"
    "movq %rdi, %rax\n"
    "movq %rsi, %rdi\n"
    "callq *%rax\n"
    "movq %rbp, %rsp\n"
    "popq %rbp\n"
    ".cfi_def_cfa %rsp, 8\n"
    "retq\n"
    ".cfi_endproc\n"
    ".size fl_call_on_stack, .-fl_call_on_stack\n"
    ".popsection\n");
#elif defined(__aarch64__)
__asm__(
    ".pushsection .text\n"
    ".globl fl_call_on_stack\n"
    ".hidden fl_call_on_stack\n"
    ".type fl_call_on_stack, %function\n"
    ".p2align 2\n"
    "fl_call_on_stack:\n"
    ".cfi_startproc\n"
    "hint #34\n"  // bti c: an indirect-branch target when BTI is on (a nop otherwise)
    "stp x29, x30, [sp, #-16]!\n"
    ".cfi_def_cfa_offset 16\n"
    ".cfi_offset x29, -16\n"
    ".cfi_offset x30, -8\n"
    "mov x29, sp\n"
    ".cfi_def_cfa_register x29\n"
    "and x2, x2, #0xfffffffffffffff0\n"  // sp must stay 16-aligned
    "mov sp, x2\n"
    "mov x3, x0\n"
    "mov x0, x1\n"
    "blr x3\n"
    "mov sp, x29\n"
    ".cfi_def_cfa_register sp\n"
    "ldp x29, x30, [sp], #16\n"
    ".cfi_def_cfa_offset 0\n"
    ".cfi_restore x29\n"
    ".cfi_restore x30\n"
    "ret\n"
    ".cfi_endproc\n"
    ".size fl_call_on_stack, .-fl_call_on_stack\n"
    ".popsection\n");
#else
#error "fl_call_on_stack: only x86-64 and aarch64 are supported"
#endif
