// Thread and fork bomb (C++): threads until the process limit refuses one, then
// forks for ever.
#include <chrono>
#include <cstdio>
#include <system_error>
#include <thread>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        execl("/proc/self/exe", argv[0], argv[1], "@MARKER@", (char *)nullptr);
        return 99;
    }
    int made = 0;
    try {
        for (;;) {
            std::thread([] { for (;;) std::this_thread::sleep_for(std::chrono::hours(1)); }).detach();
            made++;
        }
    } catch (const std::system_error &e) {
        std::fprintf(stderr, "thread %d refused: %s\n", made, e.what());
    }
    for (;;) fork();
}
