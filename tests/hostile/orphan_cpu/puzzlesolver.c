/* CPU time hidden in a child nobody waits for: the child burns the CPU (300 ms, or
   argv[2] ms), writes its line and closes a pipe; the parent waits only for EOF on
   that pipe and exits at once, without wait(). Every millisecond must still count. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int main(int argc, char **argv) {
    long ms = argc > 2 ? atol(argv[2]) : 300;
    int done[2];
    if (pipe(done) != 0) return 1;
    if (fork() == 0) {
        close(done[0]);
        while (cpu_ms() < ms) {}
        printf("child burnt %ld ms\n", ms);
        fflush(stdout);
        close(done[1]);
        _exit(0);
    }
    close(done[1]);
    char c;
    while (read(done[0], &c, 1) > 0) {}
    return 0; /* the child may still be running: nobody waits for it */
}
