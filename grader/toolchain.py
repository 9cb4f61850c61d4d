"""Whether the programs a language's commands start (its compiler, its runtime) are
installed here, and what to install where one is not: a student's own machine often
lacks them, and a build that cannot start says nothing a student can act on."""

import platform
import shutil

from grader.config import LanguageSpec

# Names the portable sandbox runs as this Python when the system has none of them.
_THIS_PYTHON = ("python3", "python")
_C_LIKE = ("gcc", "g++", "cc", "c++", "clang", "clang++")
_JAVA = ("javac", "java")

_HINTS = {
    ("Windows", "c"): (
        "install MSYS2 (https://www.msys2.org), run `pacman -S mingw-w64-ucrt-x86_64-gcc` "
        "in its UCRT64 terminal and add C:\\msys64\\ucrt64\\bin to your PATH; or grade in "
        "WSL as on Linux (see the README)"
    ),
    ("Darwin", "c"): "run `xcode-select --install` (Apple's command line tools: gcc, g++)",
    ("Linux", "c"): (
        "`sudo apt install gcc g++` (Debian, Ubuntu) or `sudo dnf install gcc gcc-c++` (Fedora)"
    ),
    ("Windows", "java"): (
        "install a JDK 17 or newer: `winget install Microsoft.OpenJDK.21` (or "
        "https://adoptium.net), then open a new terminal"
    ),
    ("Darwin", "java"): "`brew install openjdk` (or a JDK from https://adoptium.net)",
    ("Linux", "java"): (
        "`sudo apt install default-jdk` (Debian, Ubuntu) or `sudo dnf install "
        "java-21-openjdk-devel` (Fedora)"
    ),
}


def missing_tools(spec: LanguageSpec, path: str | None = None) -> list[str]:
    """The programs `spec`'s build and run commands start that are not on the PATH
    (`path`, default the environment's). A program of the build folder (./puzzlesolver)
    is the build's to make; python3 is always found (the kit runs it as itself)."""
    words = [spec.build[0]] if spec.build else []
    words += [spec.run[0]] if spec.run else []
    wanted = [
        word
        for word in dict.fromkeys(words)
        if "/" not in word and "\\" not in word and word not in _THIS_PYTHON
    ]
    return [word for word in wanted if shutil.which(word, path=path) is None]


def install_hint(tool: str, system: str | None = None) -> str:
    """What to install for `tool` on this system (platform.system()'s name)."""
    system = system or platform.system()
    family = "c" if tool in _C_LIKE else "java" if tool in _JAVA else ""
    return _HINTS.get((system, family), f"install {tool} and put it on your PATH")
