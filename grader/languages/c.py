"""C: gcc, one program from puzzlesolver.c (and the course's extra .c and .h files)."""

import re

from grader.languages import Language

# C and C++ come from the same compilers: what to install is one line for both.
INSTALL = {
    "Windows": (
        "install MSYS2 (https://www.msys2.org), run `pacman -S mingw-w64-ucrt-x86_64-gcc` "
        "in its UCRT64 terminal and add C:\\msys64\\ucrt64\\bin to your PATH; or grade in "
        "WSL as on Linux (see the README)"
    ),
    "Darwin": "run `xcode-select --install` (Apple's command line tools: gcc, g++)",
    "Linux": (
        "`sudo apt install gcc g++` (Debian, Ubuntu) or `sudo dnf install gcc gcc-c++` (Fedora)"
    ),
}
MAIN = re.compile(r"\b(?:int|void)\s+main\s*\(")

LANGUAGE = Language(
    name="c",
    display="C",
    source="puzzlesolver.c",
    build=("gcc", "-O2", "-std=gnu17", "-o", "puzzlesolver", "puzzlesolver.c"),
    run=("./puzzlesolver", "{input}"),
    suffixes=(".c",),
    companions=(".c", ".h"),
    compiled=(".c",),
    main=MAIN,
    entry_words="holds main()",
    first_argument="argv[1]",
    success="End main with return 0 (the count belongs in the output, not in the status).",
    canary=r"""#include <stdio.h>
int main(int argc, char **argv) {
    if (argc < 2) return 2;
    FILE *in = fopen(argv[1], "rb");
    if (!in) { perror(argv[1]); return 3; }
    long bytes = 0, lines = 0;
    int c;
    while ((c = getc(in)) != EOF) { bytes++; if (c == '\n') lines++; }
    fclose(in);
    printf("canary %ld %ld\n", bytes, lines);
    return 0;
}
""",
    startup="int main(void) { return 0; }\n",
    tools=("gcc", "cc", "clang"),
    install=INSTALL,
    packages=("gcc", "libc6-dev"),
)
