"""What a program's source shows without running it: whether a file is a program's
entry point, where the program reads its puzzle from, which modules it imports.

Read from the submitted files (never from anything a run printed), so a decision
built on them is data about the submission. C, C++ and Java are read after their
comments are blanked and their string literals set aside (a `main(` in a comment is
no entry point); Python is read by its own parser (`ast`).
"""

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import PurePath

C_SUFFIXES = (".c",)
CPP_SUFFIXES = (".cpp", ".cc", ".cxx", ".c++")
JAVA_SUFFIXES = (".java",)
PYTHON_SUFFIXES = (".py",)


@dataclass(frozen=True)
class Opened:
    """A file the program opens by a name written in its source."""

    name: str  # the path as written
    where: str  # "PuzzleSolver.java line 181"


@dataclass(frozen=True)
class Imported:
    """A module a Python file imports when it starts (at its top level, outside try)."""

    module: str  # the top-level package: numpy for numpy.linalg
    where: str  # "puzzlesolver.py line 16"


@dataclass(frozen=True)
class ProgramFacts:
    """What a submission's sources show, all its files together."""

    reads_stdin: str = ""  # how it reads standard input ("scanf"), "" when it does not
    uses_arguments: bool = False  # it reads its command-line arguments
    opens: tuple[Opened, ...] = ()  # files it opens by a fixed name
    # Python: modules imported at start that are neither Python's own nor the
    # program's, nor (once the course's list is applied) among `packages`.
    imports: tuple[Imported, ...] = ()
    language: str = ""  # the main file's language ("c", "cpp", "java", "python")
    packages: tuple[str, ...] = ()  # the third-party modules the course installs


NO_FACTS = ProgramFacts()


def language_of(name: str) -> str | None:
    """The language a source file name says ("c", "cpp", "java", "python"), or None."""
    suffix = PurePath(name).suffix.lower()
    for language, suffixes in (
        ("c", C_SUFFIXES),
        ("cpp", CPP_SUFFIXES),
        ("java", JAVA_SUFFIXES),
        ("python", PYTHON_SUFFIXES),
    ):
        if suffix in suffixes:
            return language
    return None


# ------------------------------------------------------------------ entry points

_C_MAIN = re.compile(r"\b(?:int|void)\s+main\s*\(")
_JAVA_MAIN = re.compile(r"\bstatic\s+(?:final\s+)?void\s+main\s*\(|\bvoid\s+main\s*\(\s*\)")


def is_entry_point(name: str, text: str) -> bool:
    """The file is where its program starts: C and C++ define main(), Java declares
    `static void main`, Python runs as a script (an `if __name__ == "__main__":`
    block, or a call at its top level)."""
    language = language_of(name)
    if language in ("c", "cpp"):
        return bool(_C_MAIN.search(_Code(text).code))
    if language == "java":
        return bool(_JAVA_MAIN.search(_Code(text).code))
    if language == "python":
        tree = _parse(text)
        return tree is not None and any(_starts_a_script(node) for node in tree.body)
    return False


def _starts_a_script(node: ast.stmt) -> bool:
    if isinstance(node, ast.If) and _is_main_guard(node.test):
        return True
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)


def _is_main_guard(test: ast.expr) -> bool:
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators)
    )


# ------------------------------------------------------------------ what a program reads


def program_facts(
    files: dict[str, str], language: str = "", packages: tuple[str, ...] = ()
) -> ProgramFacts:
    """The facts of a program made of `files` (name -> text, the main file first) in
    `language`; `packages`: the third-party modules the course installs (an import of
    one of them, or of one of the program's own files, is not listed)."""
    stdin, arguments = "", False
    opens: list[Opened] = []
    imports: list[Imported] = []
    own = {PurePath(name).stem for name in files} | set(packages)
    for name, text in files.items():
        written_in = language_of(name)
        if written_in == "python":
            facts = _python_facts(name, text, own)
        elif written_in in ("c", "cpp", "java"):
            facts = _c_like_facts(name, text, written_in)
        else:
            continue
        stdin = stdin or facts.reads_stdin
        arguments = arguments or facts.uses_arguments
        opens += facts.opens
        imports += facts.imports
    return ProgramFacts(stdin, arguments, tuple(opens), tuple(imports), language, packages)


class _Code:
    """C-like source with comments blanked and each string literal replaced by
    `"#N"` (N its index in `strings`); line breaks stay where they were."""

    def __init__(self, text: str):
        self.strings: list[tuple[str, int]] = []  # (the literal's text, its line)
        out: list[str] = []
        i, n, line = 0, len(text), 1
        while i < n:
            char = text[i]
            if text.startswith("//", i):
                end = text.find("\n", i)
                i = n if end == -1 else end
            elif text.startswith("/*", i):
                end = text.find("*/", i + 2)
                end = n if end == -1 else end + 2
                out.append("\n" * text.count("\n", i, end) or " ")
                line += text.count("\n", i, end)
                i = end
            elif char in "\"'":
                end, value = _literal_end(text, i)
                if char == '"':
                    out.append(f'"#{len(self.strings)}"')
                    self.strings.append((value, line))
                else:
                    out.append("' '")
                out.append("\n" * text.count("\n", i, end))
                line += text.count("\n", i, end)
                i = end
            else:
                out.append(char)
                line += char == "\n"
                i += 1
        self.code = "".join(out)

    def literal(self, match: "re.Match", group: int) -> tuple[str, int]:
        return self.strings[int(match.group(group))]


def _literal_end(text: str, start: int) -> tuple[int, str]:
    """Where the literal starting at `start` ends (after its closing quote), and its
    text (escapes as written)."""
    quote, i = text[start], start + 1
    while i < len(text) and text[i] != quote and text[i] != "\n":
        i += 2 if text[i] == "\\" else 1
    return min(i + 1, len(text)), text[start + 1 : i]


_C_STDIN = re.compile(
    r"\b(?:(scanf|getchar|gets|getline|fgets|fread|fscanf|fgetc|getc)\s*\([^;]*?\bstdin\b"
    r"|(scanf|getchar|gets)\s*\(|(std\s*::\s*cin|cin)\b(?!\w)|(System\s*\.\s*in)\b"
    r"|(System\s*\.\s*console)\s*\(|(stdin)\b|(read)\s*\(\s*0\s*,)"
)
# A file opened for reading by a name written as a literal: fopen("x", "r"),
# ifstream in("x"), new FileReader("x"), Path.of("x"), ...
_C_OPEN = re.compile(
    r"\b(?:fopen|freopen)\s*\(\s*\"#(\d+)\"\s*,\s*\"#(\d+)\""
    r"|\b(?:ifstream|fstream)\s*(?:\w+\s*)?[({]\s*\"#(\d+)\""
    r"|\.\s*open\s*\(\s*\"#(\d+)\""
    r"|\bnew\s+(?:FileReader|FileInputStream|File|Scanner\s*\(\s*new\s+File)\s*\(\s*\"#(\d+)\""
    r"|\b(?:Paths\s*\.\s*get|Path\s*\.\s*of)\s*\(\s*\"#(\d+)\""
)
_C_MAIN_PARAMS = re.compile(
    r"\bmain\s*\(\s*int\s+\w+\s*,\s*(?:const\s+)?char\s*(?:\*\s*){1,2}(\w+)"
)
_JAVA_MAIN_PARAMS = re.compile(
    r"\bvoid\s+main\s*\(\s*(?:final\s+)?String\s*(?:\[\s*\]|\.\.\.)\s*(\w+)"
    r"|\bvoid\s+main\s*\(\s*(?:final\s+)?String\s+(\w+)\s*\[\s*\]"
)


def _c_like_facts(name: str, text: str, language: str) -> ProgramFacts:
    code = _Code(text)
    stdin = ""
    for match in _C_STDIN.finditer(code.code):
        stdin = next(g for g in match.groups() if g)
        stdin = re.sub(r"\s+", "", stdin)
        break
    opens = []
    for match in _C_OPEN.finditer(code.code):
        if match.group(1) is not None:  # fopen: only a file opened for reading
            path, line = code.literal(match, 1)
            if "r" not in code.literal(match, 2)[0]:
                continue
        else:
            group = next(g for g in range(3, 7) if match.group(g) is not None)
            path, line = code.literal(match, group)
        if path in ("/dev/stdin", "CON"):
            stdin = stdin or path
            continue
        opens.append(Opened(path, f"{name} line {line}"))
    pattern = _JAVA_MAIN_PARAMS if language == "java" else _C_MAIN_PARAMS
    declared = pattern.search(code.code)
    arguments = False
    if declared:
        parameter = next(g for g in declared.groups() if g)
        uses = re.findall(rf"\b{re.escape(parameter)}\b", code.code)
        arguments = len(uses) > 1  # more than its declaration
    return ProgramFacts(stdin, arguments, tuple(opens))


def _parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):  # it will fail as it runs; nothing to read here
        return None


def _python_facts(name: str, text: str, own: set[str]) -> ProgramFacts:
    tree = _parse(text)
    if tree is None:
        return ProgramFacts()
    stdin, arguments, opens = "", False, []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id == "sys" and node.attr == "stdin":
                stdin = stdin or "sys.stdin"
            if node.value.id == "sys" and node.attr == "argv":
                arguments = True
        elif isinstance(node, ast.ImportFrom) and node.module in ("sys", "argparse"):
            names = {alias.name for alias in node.names}
            arguments = arguments or node.module == "argparse" or "argv" in names
            if "stdin" in names:
                stdin = stdin or "sys.stdin"
        elif isinstance(node, ast.Import) and any(a.name == "argparse" for a in node.names):
            arguments = True
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            stdin, opened = _python_call(node.func.id, node, stdin)
            opens += [Opened(path, f"{name} line {node.lineno}") for path in opened]
        elif isinstance(node, ast.Call) and _is_fileinput(node.func):
            arguments = True  # fileinput.input() reads the files its arguments name
    return ProgramFacts(stdin, arguments, tuple(opens), _python_imports(name, tree, own))


def _python_call(function: str, node: ast.Call, stdin: str) -> tuple[str, list[str]]:
    """A call of a built-in: input() reads standard input, open(0) too, open("x")
    opens a fixed file."""
    if function == "input":
        return stdin or "input()", []
    if function != "open" or not node.args:
        return stdin, []
    first = node.args[0]
    if isinstance(first, ast.Constant) and first.value == 0:
        return stdin or "open(0)", []
    mode = node.args[1] if len(node.args) > 1 else None
    mode = next((k.value for k in node.keywords if k.arg == "mode"), mode)
    reading = mode is None or (
        isinstance(mode, ast.Constant) and isinstance(mode.value, str) and "r" in mode.value
    )
    if isinstance(first, ast.Constant) and isinstance(first.value, str) and reading:
        if first.value == "/dev/stdin":
            return stdin or "/dev/stdin", []
        return stdin, [first.value]
    return stdin, []


def _is_fileinput(func: ast.expr) -> bool:
    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == "fileinput"
        and func.attr == "input"
    )


def _python_imports(name: str, tree: ast.Module, own: set[str]) -> tuple[Imported, ...]:
    """Modules imported at the top level (a failed one stops the program before it
    starts), outside try (a program may fall back when one is missing), that are
    neither Python's own nor the submission's."""
    found = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            modules = [node.module]
        else:
            continue
        for module in modules:
            root = module.split(".")[0]
            if root in sys.stdlib_module_names or root in own or root == "__future__":
                continue
            found.append(Imported(root, f"{name} line {node.lineno}"))
    return tuple(found)
