/* CPU time hidden in children the kernel reaps itself: the parent ignores SIGCHLD
   (argv[3] "ign", the default) or sets SA_NOCLDWAIT ("nocldwait"), then forks child
   after child, each burning 20 ms of CPU, until argv[2] ms (default 15000) are burnt;
   it waits for each to close its pipe, never with wait(). Such children reach no one's RUSAGE_CHILDREN, and most live and die
   between two polls: every millisecond must still count. Where the grader refuses the
   new action (no cgroup counts the run), it says so on stderr and goes on regardless;
   a fork refused at the process limit is made up for by the parent itself. After each
   child it prints how many milliseconds are burnt so far.
   @MARKER@ */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double cpu_ms(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void burn(double ms) {
    double start = cpu_ms(CLOCK_THREAD_CPUTIME_ID);
    while (cpu_ms(CLOCK_THREAD_CPUTIME_ID) - start < ms) {}
}

int main(int argc, char **argv) {
    long total = argc > 2 ? atol(argv[2]) : 15000;
    const char *how = argc > 3 ? argv[3] : "ign";
    struct sigaction action;
    memset(&action, 0, sizeof action);
    if (strcmp(how, "nocldwait") == 0) {
        action.sa_handler = SIG_DFL;
        action.sa_flags = SA_NOCLDWAIT;
    } else {
        action.sa_handler = SIG_IGN;
    }
    if (sigaction(SIGCHLD, &action, NULL) != 0) perror("sigaction refused");
    long children = 0;
    for (long burnt = 0; burnt < total; burnt += 20) {
        int done[2];
        if (pipe(done) != 0) return 1;
        pid_t pid = fork();
        if (pid == 0) {
            close(done[0]);
            burn(20);
            _exit(0);
        }
        close(done[1]);
        if (pid < 0) burn(20); /* no more processes: the parent does it */
        else children++;
        char c;
        while (read(done[0], &c, 1) > 0) {}
        close(done[0]);
        /* what has been burnt so far: the grader must count at least as much */
        printf("burnt %ld\n", burnt + 20);
        fflush(stdout);
    }
    printf("burnt %ld ms in %ld children\n", total, children);
    return 0;
}
