"""What a program's source shows without running it: whether a file is a program's
entry point, where the program reads its puzzle from, which modules it imports, how it
ends (a call that skips flushing the output, a status that is not 0), whether it writes
through two output streams with buffers of their own, and what would stop it before it
starts (a Java package line, Python 2's print statement).

Read from the submitted files (never from anything a run printed), so a decision
built on them is data about the submission. C, C++ and Java are read after their
comments are blanked and their string literals set aside (a `main(` in a comment is
no entry point); Python is read by its own parser (`ast`).
"""

import ast
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath
from typing import TypedDict

from grader import languages
from grader.languages import c, language_of


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
class Found:
    """Something the source does, and where: for the message that names it."""

    what: str  # as the source writes it: "_exit", "return count;", "package solver;"
    where: str  # "puzzlesolver.c line 77"


@dataclass(frozen=True)
class ProgramFacts:
    """What a submission's sources show, all its files together."""

    reads_stdin: str = ""  # how it reads standard input ("scanf"), "" when it does not
    uses_arguments: bool = False  # it reads its command-line arguments
    opens: tuple[Opened, ...] = ()  # files it opens by a fixed name
    # Python: modules imported at start that are neither Python's own nor the
    # program's, nor (once the course's list is applied) among `packages`.
    imports: tuple[Imported, ...] = ()
    language: str = ""  # the main file's language (a code of grader.languages)
    packages: tuple[str, ...] = ()  # the third-party modules the course installs
    abrupt_exit: Found | None = None  # ends without flushing: _exit, os._exit, halt
    mixed_streams: Found | None = None  # two output streams, each with its own buffer
    exit_status: Found | None = None  # a statement that can end with a status other than 0
    package: Found | None = None  # Java: the file declares a package
    python2: Found | None = None  # Python 2 only: the print statement
    # What could not be read of the sources, and why ("puzzlesolver.py: nested too deeply
    # to analyse"): the facts of that file are missing, never guessed.
    unread: tuple[str, ...] = ()


NO_FACTS = ProgramFacts()


# ------------------------------------------------------------------ entry points

_C_MAIN = c.MAIN  # where a C or C++ program starts: its exit status is read there


# Sources larger than this are not analysed (a program of the assignment is a few
# kB): every analysis is linear in the text or bounded per match, so this bounds its
# time and memory; deeper nesting than the parser takes is named, never fatal.
MAX_ANALYSED = 256 << 10


class Unanalysable(Exception):
    """A source the analysis cannot read within its bounds; str() says why."""


def is_entry_point(name: str, text: str) -> bool:
    """The file is where its program starts: C and C++ define main(), Java declares
    `static void main`, Python runs as a script (an `if __name__ == "__main__":`
    block, or a call at its top level). A file the analysis cannot read within its
    bounds is not claimed to be one."""
    try:
        return _is_entry_point(name, text)
    except Unanalysable:
        return False


def _is_entry_point(name: str, text: str) -> bool:
    _bounded(name, text)
    language = languages.BY_NAME.get(language_of(name) or "")
    if language is None:
        return False
    if language.main is not None:  # where it starts is a declaration in its code
        return bool(language.main.search(_Code(text).code))
    tree = _parse(text)  # Python: a script's top level
    return tree is not None and any(_starts_a_script(node) for node in tree.body)


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
    found: dict[str, Found | None] = dict.fromkeys(_FOUND)
    unread: list[str] = []
    for name, text in files.items():
        try:
            facts = _file_facts(name, text, own)
        except Unanalysable as why:
            unread.append(f"{name}: {why}")
            continue
        if facts is None:
            continue
        stdin = stdin or facts.reads_stdin
        arguments = arguments or facts.uses_arguments
        opens += facts.opens
        imports += facts.imports
        for key in _FOUND:
            found[key] = found[key] or getattr(facts, key)
    return ProgramFacts(
        stdin,
        arguments,
        tuple(opens),
        tuple(imports),
        language,
        packages,
        **found,
        unread=tuple(unread),
    )


def _file_facts(name: str, text: str, own: set[str]) -> ProgramFacts | None:
    """One file's facts (None: not a source of a known language); Unanalysable when
    it cannot be read within the analysis's bounds."""
    written_in = language_of(name)
    if written_in not in ("python", "c", "cpp", "java"):
        return None
    _bounded(name, text)
    try:
        if written_in == "python":
            return _python_facts(name, text, own)
        return _c_like_facts(name, text, written_in)
    except (RecursionError, MemoryError) as error:
        raise _too_deep(error) from None


def _bounded(name: str, text: str) -> None:
    if len(text) > MAX_ANALYSED:
        raise Unanalysable(
            f"{len(text):,} characters, more than the {MAX_ANALYSED:,} the grader analyses; "
            "the facts it reads from a source are missing"
        )


_FOUND = ("abrupt_exit", "mixed_streams", "exit_status", "package", "python2")


class _Ending(TypedDict, total=False):
    """How a program ends, as one language's reading finds it: ProgramFacts' fields."""

    abrupt_exit: Found | None
    mixed_streams: Found | None
    exit_status: Found | None
    package: Found | None


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

    def literal(self, match: "re.Match[str]", group: int) -> tuple[str, int]:
        return self.strings[int(match.group(group))]


def _literal_end(text: str, start: int) -> tuple[int, str]:
    """Where the literal starting at `start` ends (after its closing quote), and its
    text (escapes as written)."""
    quote, i = text[start], start + 1
    while i < len(text) and text[i] != quote and text[i] != "\n":
        i += 2 if text[i] == "\\" else 1
    return min(i + 1, len(text)), text[start + 1 : i]


_C_STDIN = re.compile(
    r"\b(?:(scanf|getchar|gets|getline|fgets|fread|fscanf|fgetc|getc)\s*\([^;]{0,400}?\bstdin\b"
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
    ending = _java_ending(name, code) if language == "java" else _c_ending(name, code, language)
    return ProgramFacts(stdin, arguments, tuple(opens), **ending)


def _at(name: str, code: "_Code", match: "re.Match[str]") -> str:
    return f"{name} line {code.code.count(chr(10), 0, match.start()) + 1}"


def _found(
    name: str,
    code: "_Code",
    pattern: "re.Pattern[str]",
    what: "Callable[[re.Match[str]], str] | None" = None,
) -> Found | None:
    match = pattern.search(code.code)
    if match is None:
        return None
    shown = what(match) if what else re.sub(r"\s+", "", match.group(0)).rstrip("(")
    return Found(shown, _at(name, code, match))


_C_ABRUPT = re.compile(r"\b(?:_exit|_Exit|quick_exit)\s*\(")
_C_STDIO_OUT = re.compile(r"\b(?:printf|puts|putchar|fputs|fwrite|fprintf|fputc|putc)\s*\(")
_CPP_COUT = re.compile(r"\b(?:std\s*::\s*)?cout\b")
_CPP_UNSYNCED = re.compile(r"\bsync_with_stdio\s*\(\s*(?:false|0)\s*\)")
_C_RAW_WRITE = re.compile(r"\bwrite\s*\(\s*(?:1|STDOUT_FILENO)\s*,")  # no buffer at all
_C_EXIT_CALL = re.compile(r"\bexit\s*\(\s*([^()]*(?:\([^()]*\)[^()]*)*)\)")
_ZERO = re.compile(r"^\(?\s*(?:0|EXIT_SUCCESS|0\s*;?)?\s*\)?$")


def _c_ending(name: str, code: "_Code", language: str) -> _Ending:
    """How a C or C++ program ends, and what it writes its output through."""
    mixed = None
    stdio = _C_STDIO_OUT.search(code.code)
    cout = _CPP_COUT.search(code.code) if language == "cpp" else None
    unsynced = _CPP_UNSYNCED.search(code.code)
    raw = _C_RAW_WRITE.search(code.code)
    buffered = stdio or cout
    if raw and buffered:
        writes = "cout" if buffered is cout else re.sub(r"\s+", "", buffered.group(0)).rstrip("(")
        mixed = Found(f"{writes} and write(1, ...)", _at(name, code, raw))
    elif stdio and cout and unsynced:
        writes = re.sub(r"\s+", "", stdio.group(0)).rstrip("(")
        mixed = Found(f"{writes} and cout after sync_with_stdio(false)", _at(name, code, unsynced))
    return {
        "abrupt_exit": _found(name, code, _C_ABRUPT),
        "mixed_streams": mixed,
        "exit_status": _c_exit_status(name, code),
    }


def _c_exit_status(name: str, code: "_Code") -> Found | None:
    """A `return` in main, or an exit() anywhere, whose value is not 0."""
    candidates = []
    main = _C_MAIN.search(code.code)
    if main is not None:
        body, start = _body(code.code, main.end())
        for match in re.finditer(r"\breturn\b\s*([^;]{0,400});", body):
            value = match.group(1).strip()
            line = code.code.count("\n", 0, start + match.start()) + 1
            candidates.append((value, Found(f"return {value};", f"{name} line {line}")))
    for match in _C_EXIT_CALL.finditer(code.code):
        value = match.group(1).strip()
        candidates.append((value, Found(f"exit({value})", _at(name, code, match))))
    return _likeliest(candidates)


_LITERAL = re.compile(r"^\(?\s*-?\d+\s*\)?$|^EXIT_FAILURE$|^[\"'].*")


def _likeliest(candidates: list[tuple[str, Found]]) -> Found | None:
    """Of the statements that may end a program with a status other than 0, the one
    that sets a computed status (return count;) before those of an error path (a
    literal: exit(1), sys.exit("usage: ...")); the first of either."""
    nonzero = [(value, found) for value, found in candidates if not _ZERO.match(value)]
    computed = [found for value, found in nonzero if not _LITERAL.match(value)]
    ranked = computed or [found for _, found in nonzero]
    return ranked[0] if ranked else None


def _body(code: str, start: int) -> tuple[str, int]:
    """The text of the block that opens at the first `{` after `start`, and where it
    starts."""
    opening = code.find("{", start)
    if opening < 0:
        return "", start
    depth = 0
    for i in range(opening, len(code)):
        depth += {"{": 1, "}": -1}.get(code[i], 0)
        if depth == 0:
            return code[opening : i + 1], opening
    return code[opening:], opening


_JAVA_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.M)
_JAVA_HALT = re.compile(r"\bRuntime\s*\.\s*getRuntime\s*\(\s*\)\s*\.\s*halt\s*\(")
_JAVA_WRITER = re.compile(
    r"\bnew\s+(?:PrintWriter|BufferedWriter|BufferedOutputStream|PrintStream)\s*\("
    r"[^;]{0,400}?(?:System\s*\.\s*out|FileDescriptor\s*\.\s*out)"
)
_JAVA_SYSTEM_OUT = re.compile(r"\bSystem\s*\.\s*out\s*\.\s*(?:print|println|printf|write)\s*\(")
_JAVA_EXIT = re.compile(r"\bSystem\s*\.\s*exit\s*\(\s*([^()]*(?:\([^()]*\)[^()]*)*)\)")


def _java_ending(name: str, code: "_Code") -> _Ending:
    """How a Java program ends, what it writes its output through, its package."""
    writer = _JAVA_WRITER.search(code.code)
    abrupt = _found(name, code, _JAVA_HALT, lambda m: "Runtime.getRuntime().halt")
    exits = [
        (
            match.group(1).strip(),
            Found(f"System.exit({match.group(1).strip()})", _at(name, code, match)),
        )
        for match in _JAVA_EXIT.finditer(code.code)
    ]
    status = _likeliest(exits)
    if writer is not None and abrupt is None and exits:  # a writer's buffer is not flushed
        ending = [
            found for value, found in exits if not _LITERAL.match(value) or _ZERO.match(value)
        ]
        abrupt = (ending or [exits[-1][1]])[0]
    mixed = None
    if writer is not None and _JAVA_SYSTEM_OUT.search(code.code):
        mixed = Found("System.out and a writer of its own over it", _at(name, code, writer))
    package = _found(name, code, _JAVA_PACKAGE, lambda m: f"package {m.group(1)};")
    return {
        "abrupt_exit": abrupt,
        "mixed_streams": mixed,
        "exit_status": status,
        "package": package,
    }


def _parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):  # it will fail as it runs; nothing to read here
        return None
    except (RecursionError, MemoryError) as error:  # the parser's own bounds
        raise _too_deep(error) from None


def _too_deep(error: BaseException) -> Unanalysable:
    return Unanalysable(
        f"nested too deeply to analyse ({type(error).__name__}); the facts the grader reads "
        "from a source (where it reads its puzzle, how it ends) are missing"
    )


_PYTHON2_PRINT = re.compile(r"^[ \t]*print[ \t]+(?![ \t]*[(=,.)\[])\S", re.M)


def _python_facts(name: str, text: str, own: set[str]) -> ProgramFacts:
    tree = _parse(text)
    if tree is None:
        found = _PYTHON2_PRINT.search(text)
        if found is None:
            return ProgramFacts()
        line = text.count("\n", 0, found.start()) + 1
        statement = text[found.start() :].split("\n", 1)[0].strip()
        return ProgramFacts(python2=Found(statement[:60], f"{name} line {line}"))
    stdin, arguments, opens = "", False, []
    calls: list[ast.Call] = []  # for the ending: one walk of the tree (a big one is slow)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            calls.append(node)
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
    return ProgramFacts(
        stdin,
        arguments,
        tuple(opens),
        _python_imports(name, tree, own),
        **_python_ending(name, text, calls),
    )


def _python_ending(name: str, text: str, calls: list[ast.Call]) -> _Ending:
    """How a Python program ends, and what it writes its output through (`calls`: every
    call of its tree)."""
    abrupt = printed = raw = None
    exits = []
    lines = _source_lines(text)
    for node in sorted(calls, key=lambda n: (n.lineno, n.col_offset)):
        called = _dotted(node.func)
        where = f"{name} line {node.lineno}"
        if called == "os._exit" and abrupt is None:
            abrupt = Found((_segment(lines, node) or called)[:60], where)
        elif called in ("sys.exit", "exit", "quit") and node.args:
            value = _segment(lines, node.args[0]) or ""
            shown = _segment(lines, node) or called
            exits.append(("0" if value == "None" else value, Found(shown[:60], where)))
        elif called in ("print", "sys.stdout.write") and printed is None:
            printed = Found(called, where)
        elif raw is None and (
            called in ("sys.stdout.buffer.write", "sys.__stdout__.write")
            or (called == "os.write" and node.args and _is_one(node.args[0]))
        ):
            raw = Found(called, where)
    mixed = None
    if printed is not None and raw is not None:
        mixed = Found(f"{printed.what} and {raw.what}", raw.where)
    return {"abrupt_exit": abrupt, "mixed_streams": mixed, "exit_status": _likeliest(exits)}


_LINE_END = re.compile(r"\r\n|\r|\n")


def _source_lines(text: str) -> list[str]:
    """The lines as the parser numbers them (ends kept; a form feed ends none), split
    once: ast.get_source_segment splits the whole text again at every call, which made
    a few hundred calls of a long program cost seconds."""
    lines, start = [], 0
    for end in _LINE_END.finditer(text):
        lines.append(text[start : end.end()])
        start = end.end()
    if start < len(text):
        lines.append(text[start:])
    return lines


def _segment(lines: list[str], node: ast.expr) -> str | None:
    """ast.get_source_segment over lines split once (columns are UTF-8 byte offsets)."""
    first, last = node.lineno - 1, (node.end_lineno or 0) - 1
    start, end = node.col_offset, node.end_col_offset
    if end is None or not 0 <= first <= last < len(lines):
        return None
    if first == last:
        return lines[first].encode()[start:end].decode()
    head = lines[first].encode()[start:].decode()
    tail = lines[last].encode()[:end].decode()
    return "".join([head, *lines[first + 1 : last], tail])


def _dotted(func: ast.expr) -> str:
    """A called name as written: "print", "sys.stdout.buffer.write" ("" otherwise)."""
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return ""
    return ".".join([func.id, *reversed(parts)])


def _is_one(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value == 1


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
