/* Leaves processes behind and exits at once: a double-forked setsid daemon that
   ignores SIGTERM and SIGHUP, a plain background child, and a nohup'ed shell loop.
   All of them carry the marker in their argv. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        execl("/proc/self/exe", argv[0], argv[1], "@MARKER@", (char *)0);
        return 99;
    }
    if (fork() == 0) {
        setsid();
        if (fork() == 0) {
            signal(SIGTERM, SIG_IGN);
            signal(SIGHUP, SIG_IGN);
            for (;;) sleep(1);
        }
        _exit(0);
    }
    if (fork() == 0) {
        signal(SIGHUP, SIG_IGN);
        for (;;) sleep(1);
    }
    system("nohup sh -c 'while :; do sleep 1; done' @MARKER@ >/dev/null 2>&1 &");
    puts("parent done");
    return 0;
}
