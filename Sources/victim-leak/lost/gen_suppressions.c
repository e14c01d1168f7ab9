// Reports for --gen-suppressions, and the round trip: what it prints, fed
// back as the suppressions file, silences those reports and no others.
#include "gen_suppressions.h"
#include "victim_leak_check.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct gen_node { struct gen_node *next; char payload[24]; } gen_node;

__attribute__((noinline)) static void gen_lose_list(void) {
    gen_node *head = 0;
    for (int i = 0; i < 5; i++) {
        gen_node *n = malloc(sizeof *n);
        memset(n, 0, sizeof *n);
        n->next = head;
        head = n;
    }
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void gen_lose_block(void) {
    volatile char *p = malloc(300);
    p[0] = 1;
}

__attribute__((noinline)) static void gen_lose_extra(void) {
    volatile char *p = malloc(91);
    p[0] = 1;
}

__attribute__((noinline)) static void gen_free_twice(void) {
    char *volatile p = malloc(40);
    free(p);
    free(p);
}

__attribute__((noinline)) static void gen_free_inside(void) {
    char *volatile p = malloc(64);
    free(p + 16);
    free(p);
}

int victim_gen_suppressions(const char *which) {
    int all = !strcmp(which, "all");
    if (!all && strcmp(which, "first")) { fprintf(stderr, "victim: gen-suppressions takes first or all\n"); return 2; }
    gen_lose_list();
    gen_lose_block();
    gen_free_twice();
    if (all) {
        gen_lose_extra();
        gen_free_inside();
    }
    victim_clear_stack();
    printf("victim: gen-suppressions %s done\n", which);
    return 0;
}

// Runs `self gen-suppressions ARG` with `env` added, stderr into `err` when not NULL.
static int run(const char *self, const char *arg, const char *const *env, const char *err) {
    fflush(0);
    pid_t p = fork();
    if (p < 0) return -1;
    if (p == 0) {
        for (int i = 0; env[i]; i += 2) setenv(env[i], env[i + 1], 1);
        if (err) {
            int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (fd < 0 || dup2(fd, 2) < 0) _exit(126);
        }
        execl("/proc/self/exe", self, "gen-suppressions", arg, (char *)0);
        _exit(127);
    }
    int status;
    if (waitpid(p, &status, 0) < 0) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The comment lines `# faultline --gen-suppressions…` of `err` and the
// line after each, into `supp`; returns the suppressions kept, or -1.
static int extract(const char *err, const char *supp) {
    FILE *in = fopen(err, "r"), *out = fopen(supp, "w");
    if (!in || !out) return -1;
    char line[4096];
    int take = 0, kept = 0;
    while (fgets(line, sizeof line, in)) {
        if (!strncmp(line, "# faultline --gen-suppressions", 30)) { fputs(line, out); take = 1; continue; }
        if (take && line[0] != '#') { fputs(line, out); kept++; }
        take = 0;
    }
    fclose(in);
    fclose(out);
    return kept;
}

int victim_gen_suppressions_round_trip(const char *self) {
    char cwd[PATH_MAX - 64], reports[PATH_MAX], supp[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) return 2;
    snprintf(reports, sizeof reports, "%s/first-reports", cwd);
    snprintf(supp, sizeof supp, "%s/generated.supp", cwd);
    mkdir(reports, 0700);
    const char *first_env[] = {"FAULTLINE_GEN_SUPPRESSIONS", "1", "FAULTLINE_REPORT_DIR", reports, 0};
    int rc = run(self, "first", first_env, "first.err");
    if (rc != 0) { printf("victim: the first run ended with %d\n", rc); return 1; }
    int kept = extract("first.err", supp);
    printf("victim: the first run printed %d suppression(s)\n", kept);
    if (kept < 0) return 2;
    const char *second_env[] = {"FAULTLINE_GEN_SUPPRESSIONS", "0", "FAULTLINE_SUPPRESSIONS", supp, 0};
    return run(self, "all", second_env, 0);
}
