"""Python: no build; python3 runs the file (where a program starts is read from its syntax
tree: grader.languages.source_facts)."""

from grader.languages import Language

LANGUAGE = Language(
    name="python",
    display="Python",
    source="puzzlesolver.py",
    build=(),
    run=("python3", "puzzlesolver.py", "{input}"),
    suffixes=(".py",),
    companions=(".py",),
    compiled=(),
    main=None,
    entry_words="runs as a script",
    first_argument="sys.argv[1]",
    success="Let the program end, or call sys.exit(0).",
    canary=r"""import sys

with open(sys.argv[1], "rb") as puzzle:
    data = puzzle.read()
print("canary", len(data), data.count(b"\n"))
""",
    startup="# starts and exits\n",
    tools=("python3", "python"),
    third_party=True,
    allocation_failed=("MemoryError",),
)
