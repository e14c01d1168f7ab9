#include "cancel_off.h"

#include <pthread.h>

int fl_cancel_off(void) {
    int old = PTHREAD_CANCEL_ENABLE;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    return old;
}

void fl_cancel_restore(int state) { pthread_setcancelstate(state, 0); }
