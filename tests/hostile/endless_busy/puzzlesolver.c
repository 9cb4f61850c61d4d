/* Endless busy loop. It re-executes itself once with a marker in its argv, so the
   test can tell from the process table that it is gone afterwards. */
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        execl("/proc/self/exe", argv[0], argv[1], "@MARKER@", (char *)0);
        return 99;
    }
    volatile unsigned long spins = 0;
    for (;;) spins++;
}
