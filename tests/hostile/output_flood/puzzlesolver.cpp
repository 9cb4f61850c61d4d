// Output flood (C++): 4 GiB of lines through std::cout unless stopped.
#include <iostream>
#include <string>

int main() {
    std::ios::sync_with_stdio(false);
    const std::string line(1023, 'x');
    for (long i = 0; i < 4L * 1024 * 1024; i++) std::cout << line << '\n';
}
