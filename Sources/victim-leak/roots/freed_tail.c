#include "freed_tail.h"
#include "victim_leak_check.h"

#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void lose_through_freed_tables(void) {
    static const size_t sizes[2] = {16 << 10, 256 << 10}, leaked[2] = {48, 56};
    for (int i = 0; i < 2; i++) {
        void **table = calloc(sizes[i] / sizeof(void *), sizeof(void *));
        table[sizes[i] / sizeof(void *) - 1] = malloc(leaked[i]);
        free(table);
    }
}

int victim_freed_tail(void) {
    lose_through_freed_tables();
    victim_clear_stack();
    printf("victim: freed two tables whose last words held the only pointers to 104 bytes\n");
    return 0;
}
