/* A leaderboard cheat: a correct program (pasted in below by the test, its main
   renamed) run in a child that the kernel reaps itself (the parent sets SA_NOCLDWAIT
   and ignores SIGCHLD), so that its CPU time reaches no one's RUSAGE_CHILDREN; the
   parent only waits for EOF on a pipe. It must count as the honest twin's does. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define main honest_main
@HONEST@
#undef main

int main(int argc, char **argv) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = SIG_IGN;
    action.sa_flags = SA_NOCLDWAIT;
    sigaction(SIGCHLD, &action, NULL); /* refused where no cgroup counts: no matter */
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
