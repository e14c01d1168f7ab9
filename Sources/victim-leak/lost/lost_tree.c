// Lost structures whose blocks hang from one definitely lost block
// (lost_tree.h).
#include "lost_tree.h"
#include "victim_leak_check.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct tree_node { struct tree_node *left, *right; char payload[24]; } tree_node;

// Every node is allocated here; its children through the two recursive
// calls, so each depth and path is an allocation stack of its own.
__attribute__((noinline)) static tree_node *make_tree(int depth) {
    tree_node *n = malloc(sizeof *n);
    memset(n, 0, sizeof *n);
    if (depth > 1) {
        n->left = make_tree(depth - 1);
        n->right = make_tree(depth - 1);
    }
    __asm__ volatile("" ::: "memory");  // keeps the calls real calls
    return n;
}

__attribute__((noinline)) static void lose_small(void) {
    for (int i = 0; i < 16; i++) {
        volatile char *p = malloc(24);
        p[0] = 1;
    }
}

__attribute__((noinline)) static void lose_tree(void) {
    tree_node *root = make_tree(7);
    printf("victim: built a 127-node tree at %p and dropped its root\n", (void *)root);
    root = 0;
}

int victim_lost_tree(void) {
    lose_tree();
    lose_small();
    victim_clear_stack();
    printf("victim: lost 16 blocks of 24 bytes from lose_small\n");
    return 0;
}

typedef struct cycle_node { struct cycle_node *next; char payload[56]; } cycle_node;

__attribute__((noinline)) static cycle_node *make_cycle(int n) {
    cycle_node *first = 0, *last = 0;
    for (int i = 0; i < n; i++) {
        cycle_node *x = malloc(sizeof *x);
        memset(x, 0, sizeof *x);
        snprintf(x->payload, sizeof x->payload, "cycle node %d", i);
        if (!first) first = x; else last->next = x;
        last = x;
    }
    last->next = first;
    return first;
}

__attribute__((noinline)) static void lose_cycle(void) {
    cycle_node *c = make_cycle(12);
    printf("victim: built a 12-node cyclic list at %p and dropped it\n", (void *)c);
    c = 0;
}

int victim_lost_cyclic_list(void) {
    lose_cycle();
    victim_clear_stack();
    return 0;
}

int victim_suppressed_tree(const char *self) {
    FILE *f = fopen("tree.supp", "w");
    if (!f) { perror("victim: tree.supp"); return 2; }
    fputs("leak:suppressed_tree_root\n", f);
    fclose(f);
    char path[PATH_MAX];
    if (!getcwd(path, sizeof path - 16)) return 2;
    strcat(path, "/tree.supp");
    setenv("FAULTLINE_SUPPRESSIONS", path, 1);
    execl("/proc/self/exe", self, "suppressed-tree-run", (char *)0);
    perror("victim: exec");
    return 2;
}

__attribute__((noinline)) static tree_node *tree_child(int depth) {
    tree_node *n = malloc(sizeof *n);
    memset(n, 0, sizeof *n);
    if (depth > 1) {
        n->left = tree_child(depth - 1);
        n->right = tree_child(depth - 1);
    }
    __asm__ volatile("" ::: "memory");
    return n;
}

// The root only: its children are made outside it, so that their own
// stacks do not name it and only the root's suppression can silence them.
__attribute__((noinline)) static tree_node *suppressed_tree_root(tree_node *left, tree_node *right) {
    tree_node *n = malloc(sizeof *n);
    memset(n, 0, sizeof *n);
    n->left = left;
    n->right = right;
    return n;
}

__attribute__((noinline)) static void lose_other(void) {
    volatile char *p = malloc(91);
    p[0] = 1;
}

int victim_suppressed_tree_run(void) {
    tree_node *left = tree_child(2), *right = tree_child(2);
    tree_node *volatile root = suppressed_tree_root(left, right);
    left = right = 0;
    printf("victim: dropped a 7-node tree whose root comes from suppressed_tree_root at %p\n", (void *)root);
    root = 0;
    lose_other();
    victim_clear_stack();
    return 0;
}
