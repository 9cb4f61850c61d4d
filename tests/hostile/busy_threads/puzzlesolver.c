/* Four busy threads and a busy main thread: the CPU time of one process grows several
   times faster than the clock. The CPU limit is the whole tree's, and the TLE
   message must give the figure that stopped it (never less CPU than the limit). */
#include <pthread.h>

static void *spin(void *unused) {
    volatile unsigned long n = 0;
    for (;;) n++;
    return unused;
}

int main(void) {
    pthread_t threads[4];
    for (int i = 0; i < 4; i++) pthread_create(&threads[i], 0, spin, 0);
    spin(0);
}
