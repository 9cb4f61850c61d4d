"""Every language the grader builds and runs, one module each, found through REGISTRY:
each module declares all there is to know about its language (file names, commands,
what a build compiles, where a program starts, how it reads its argument and ends,
its canary and start-up programs, what to install). Every other table of the grader
(course.toml's defaults, the source analysis, the builds, the causes, the canaries,
the leaderboard's start-up programs, the exports' names, the install hints) is derived
from here: a new language is one module and its line below.

The modules are imported by name, not discovered: the student kit and the Gradescope
zip collect the modules a program imports (grader.exports.common.module_entries).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePath


@dataclass(frozen=True)
class Language:
    name: str  # the code everywhere: course.toml's table, results.json, the store
    display: str  # for people: "C++"
    source: str  # the file a submission must use
    build: tuple[str, ...]  # the default command; () for none
    run: tuple[str, ...]  # the default command; may hold {input} and {heap_mb}
    suffixes: tuple[str, ...]  # a source file of this language is named so
    companions: tuple[str, ...]  # the other files a build or an import may use
    compiled: tuple[str, ...]  # what "{sources}" adds to the main file; (): nothing
    main: re.Pattern[str] | None  # where a program starts, in its code without comments
    entry_words: str  # "holds main()": what makes a file the entry point, for people
    first_argument: str  # how it reads the puzzle's path
    success: str  # how it ends with status 0
    canary: str  # reads the file named by its first argument, prints "canary BYTES LINES"
    startup: str  # only starts and exits; {name}: the source's stem
    tools: tuple[str, ...]  # the programs its commands may start, for install hints
    install: Mapping[str, str] = field(default_factory=dict)  # platform.system() -> what
    packages: tuple[str, ...] = ()  # the Debian packages of its toolchain
    allocation_failed: tuple[str, ...] = ()  # what its runtime says when memory runs out
    memory_rlimit: bool = True  # False for the JVM: its heap is capped by -Xmx
    third_party: bool = False  # course.toml may list the modules it may import
    # What a misnamed entry point must become ({source}: the course's file name, {stem}:
    # without its suffix).
    rename: str = "name it {source}"


def _registry() -> tuple[Language, ...]:
    from grader.languages import c, cpp, java, python, rust

    return (c.LANGUAGE, cpp.LANGUAGE, java.LANGUAGE, python.LANGUAGE, rust.LANGUAGE)


REGISTRY: tuple[Language, ...] = _registry()
BY_NAME: Mapping[str, Language] = {language.name: language for language in REGISTRY}


def language_of(name: str) -> str | None:
    """The language a source file's name says, or None."""
    suffix = PurePath(name).suffix.lower()
    return next((lang.name for lang in REGISTRY if suffix in lang.suffixes), None)


def install_hint(tool: str, system: str) -> str | None:
    """What to install for `tool` on `system` (platform.system()'s name), if a language
    knows it."""
    for language in REGISTRY:
        if tool in language.tools and system in language.install:
            return language.install[system]
    return None
