#include "victim_leak_check.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

victim_leak_check_fn victim_leak_check(void) {
    return (victim_leak_check_fn)dlsym(RTLD_DEFAULT, "faultline_leak_check");
}

victim_leak_check_fn victim_leak_check_needed(void) {
    victim_leak_check_fn check = victim_leak_check();
    if (!check) printf("victim: faultline_leak_check not found (shim not preloaded)\n");
    return check;
}

__attribute__((noinline)) void victim_clear_stack(void) {
    volatile char junk[16384];
    memset((char *)junk, 0, sizeof junk);
}

int victim_leak_reports(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != 0;)
        if (!strncmp(e->d_name, "leak-", 5) && strstr(e->d_name, ".json")) n++;
    closedir(d);
    return n;
}
