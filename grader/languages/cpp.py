"""C++: g++, one program from puzzlesolver.cpp (and the course's extra sources and headers)."""

from grader.languages import Language
from grader.languages.c import INSTALL, MAIN

LANGUAGE = Language(
    name="cpp",
    display="C++",
    source="puzzlesolver.cpp",
    build=("g++", "-O2", "-std=gnu++17", "-o", "puzzlesolver", "puzzlesolver.cpp"),
    run=("./puzzlesolver", "{input}"),
    suffixes=(".cpp", ".cc", ".cxx", ".c++"),
    companions=(".cpp", ".cc", ".cxx", ".c++", ".h", ".hpp", ".hh", ".hxx", ".ipp", ".tpp", ".inl"),
    compiled=(".cpp", ".cc", ".cxx", ".c++"),
    main=MAIN,
    entry_words="holds main()",
    first_argument="argv[1]",
    success="End main with return 0 (the count belongs in the output, not in the status).",
    canary=r"""#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
int main(int argc, char **argv) {
    if (argc < 2) return 2;
    std::ifstream in(argv[1], std::ios::binary);
    if (!in) { std::cerr << "cannot open " << argv[1] << "\n"; return 3; }
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    long lines = 0;
    for (char c : data) if (c == '\n') ++lines;
    std::cout << "canary " << data.size() << " " << lines << "\n";
    return 0;
}
""",
    startup="int main() { return 0; }\n",
    tools=("g++", "c++", "clang++"),
    install=INSTALL,
    packages=("g++",),
    allocation_failed=("bad_alloc",),
)
