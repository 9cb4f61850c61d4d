/* Memory bomb: allocate and touch 1 MiB at a time until malloc says no. (Touched
   through a volatile pointer: an optimiser drops memory that is written and never read.) */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    for (long mib = 0;; mib++) {
        volatile char *p = malloc(1 << 20);
        if (!p) {
            fprintf(stderr, "malloc failed after %ld MiB\n", mib);
            return 1;
        }
        for (long i = 0; i < 1 << 20; i += 4096) p[i] = 1;
    }
}
