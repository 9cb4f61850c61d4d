// Memory bomb (C++): vectors of 1 MiB until new throws std::bad_alloc (uncaught).
#include <vector>

int main() {
    std::vector<std::vector<char>> hoard;
    for (;;) hoard.emplace_back(1 << 20, 'x');
}
