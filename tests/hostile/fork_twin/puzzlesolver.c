/* A leaderboard cheat: a correct program (pasted in below by the test, its main
   renamed) run in a child, while the parent, the process the grader waits for,
   only waits for EOF on a pipe and exits without wait(). Its CPU time must count as
   the honest twin's does: it can never rank above it. */
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

#define main honest_main
@HONEST@
#undef main

int main(int argc, char **argv) {
    int done[2];
    if (pipe(done) != 0) return 1;
    if (fork() == 0) {
        close(done[0]);
        int status = honest_main(argc, argv);
        fflush(stdout);
        _exit(status);
    }
    close(done[1]);
    char c;
    while (read(done[0], &c, 1) > 0) {}
    return 0;
}
