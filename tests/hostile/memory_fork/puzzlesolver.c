/* Memory spread over processes: six children each touch 64 MiB (each far below the
   limit, together above it) and wait. Only the tree's total can catch it. (Touched
   through a volatile pointer: an optimiser drops memory that is written and never read.) */
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        execl("/proc/self/exe", argv[0], argv[1], "@MARKER@", (char *)0);
        return 99;
    }
    for (int i = 0; i < 6; i++) {
        if (fork() == 0) {
            volatile char *p = malloc(64 << 20);
            for (long j = 0; p && j < 64 << 20; j += 4096) p[j] = 1;
            for (;;) pause();
        }
    }
    for (;;) pause();
}
