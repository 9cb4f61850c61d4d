"""Whether the programs a language's commands start (its compiler, its runtime) are
installed here, and what to install where one is not: a student's own machine often
lacks them, and a build that cannot start says nothing a student can act on."""

import platform
import shutil

from grader import languages
from grader.course.config import LanguageSpec

# Names the portable sandbox runs as this Python when the system has none of them.
_THIS_PYTHON = ("python3", "python")


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
    """What to install for `tool` on this system (platform.system()'s name): its
    language's line (grader.languages), else the tool's name."""
    hint = languages.install_hint(tool, system or platform.system())
    return hint or f"install {tool} and put it on your PATH"
