// victim-leak check-while-cancelled: an on-demand leak check on a thread
// with a pthread_cancel pending.
#ifndef VICTIM_CHECK_WHILE_CANCELLED_H
#define VICTIM_CHECK_WHILE_CANCELLED_H

/// A worker with a pthread_cancel pending (deferred; it reached no
/// cancellation point) calls faultline_leak_check(); main then joins it,
/// allocates and checks again. Returns 0 when main got there, 2 without
/// the shim. Under Faultline the worker once ended inside the scan, holding
/// a lock of the shim's, and main's next malloc waited for ever.
int victim_check_while_cancelled(void);

#endif
