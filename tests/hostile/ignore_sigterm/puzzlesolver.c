/* Ignores SIGTERM, SIGHUP and SIGINT, forks a child that does the same, and waits
   forever: only SIGKILL (or the end of its pid namespace) stops it. */
#include <signal.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        execl("/proc/self/exe", argv[0], argv[1], "@MARKER@", (char *)0);
        return 99;
    }
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    fork();
    for (;;) pause();
}
