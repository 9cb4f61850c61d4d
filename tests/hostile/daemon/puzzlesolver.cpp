// Becomes a daemon with daemon(3): forks, the parent exits at once, the child starts a
// new session, moves to / and keeps running with the marker in its argv.
#include <cstdio>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        execl("/proc/self/exe", argv[0], argv[1], "@MARKER@", (char *)nullptr);
        return 99;
    }
    std::puts("daemonizing");
    std::fflush(stdout);
    if (daemon(0, 0) != 0) return 1;
    for (;;) sleep(1);
}
