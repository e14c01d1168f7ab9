// victim-leak check-under-setxid: on-demand leak checks while threads loop
// on seteuid.
#ifndef VICTIM_CHECK_UNDER_SETXID_H
#define VICTIM_CHECK_UNDER_SETXID_H

/// As root: three threads call seteuid(1000) and seteuid(0) without pause
/// (glibc sends SIGSETXID to every thread at each call) while main runs
/// faultline_leak_check() `checks` times. Returns 0 when they all came
/// back within 10 s, 1 otherwise, 2 on a setup error.
int victim_check_under_setxid(int checks);

/// As root, with a block lost before: the same checks while the threads
/// flip seteuid(65534) and seteuid(0), each check writing a leak report
/// into FAULTLINE_REPORT_DIR (root's, not writable by 65534). Returns 0
/// when `checks` leak reports are there and every thread then has main's
/// ids (victim_threads_have_main_ids), 1 otherwise, 2 on a setup error.
int victim_checks_while_euid_flips(int checks);

#endif
