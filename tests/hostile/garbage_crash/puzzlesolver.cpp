// Prints terminal-hostile bytes on stderr (a right-to-left override too), then fails
// (exit 1): its error output is shown in the diagnosis, so it must be shown safely.
#include <cstdio>

int main() {
    static const char garbage[] =
        "\xff\xfe invalid utf-8 nul>\0<nul\n"
        "\x1b[2J\x1b[1;31mred\x1b]0;pwned-title\x07 \xc2\x9b" "6n\r\b\b\n"
        "\xe2\x80\xae" "desrever\n";
    std::fwrite(garbage, 1, sizeof garbage - 1, stderr);
    return 1;
}
