/* Fork bomb: every process forks for ever (failures ignored). Only the sandbox's
   process limit bounds it; all of it carries the marker (forks keep the argv). */
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        execl("/proc/self/exe", argv[0], argv[1], "@MARKER@", (char *)0);
        return 99;
    }
    for (;;) fork();
}
