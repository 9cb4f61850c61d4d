// Snoops (C++, std::filesystem and fstream): tries to list or read every path in
// @PATHS@ and prints what it gets; on stderr one line per path: read, listed,
// missing or denied.
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

static std::string why(const std::error_code &ec) {
    if (ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory)
        return "missing";
    if (ec == std::errc::permission_denied || ec == std::errc::operation_not_permitted)
        return "denied";
    return ec.message();
}

int main() {
    std::stringstream list("@PATHS@");
    std::string path;
    while (std::getline(list, path, '|')) {
        std::error_code ec;
        fs::file_status st = fs::status(path, ec);
        if (ec) {
            std::cerr << why(ec) << '\t' << path << '\n';
            continue;
        }
        if (fs::is_directory(st)) {
            int n = 0;
            fs::directory_iterator it(path, ec);
            if (ec) {
                std::cerr << why(ec) << '\t' << path << '\n';
                continue;
            }
            for (const auto &entry : it) {
                std::cout << entry.path().string() << '\n';
                n++;
            }
            std::cerr << "listed\t" << path << '\t' << n << '\n';
            continue;
        }
        std::ifstream in(path, std::ios::binary);
        if (!in) {
            std::cerr << (errno == EACCES ? "denied" : "missing") << '\t' << path << '\n';
            continue;
        }
        char buf[4096];
        in.read(buf, sizeof buf);
        std::cout.write(buf, in.gcount());
        std::cerr << "read\t" << path << '\t' << in.gcount() << '\n';
    }
    std::cout.flush();
    return 3;
}
