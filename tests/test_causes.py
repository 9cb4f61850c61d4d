"""Root causes (grader.languages.source_facts, grader.judge.causes): what the source of a real program
making the mistake shows, and the cause a failing run is then told first. The same
programs graded for real: tests/test_feedback_rules.py."""

import ast
from pathlib import Path

import pytest

from grader.cases.manifest import Case as ManifestCase
from grader.core.model import Limits, Verdict
from grader.course.config import ConfigError, load_config
from grader.intake.submissions import load
from grader.judge.causes import root_cause
from grader.judge.judging import judge, run_in
from grader.languages.source_facts import Imported, Opened, _segment, _source_lines, program_facts
from tests.fakes import FakeSandbox, result
from tests.helpers import ROOT
from tests.helpers import SAMPLE_TEXT as SAMPLE
from tests.helpers import PuzzleCase as Case

pytestmark = pytest.mark.fast

MISTAKES = ROOT / "tests" / "mistakes"
CONFIG = load_config()


def facts_of(name):
    return load(MISTAKES / name, CONFIG).facts


def test_what_the_sources_of_the_mistakes_show():
    stdin = facts_of("reads-stdin")
    assert (stdin.reads_stdin, stdin.uses_arguments, stdin.opens) == ("scanf", False, ())
    fixed = facts_of("fixed-path")
    assert fixed.opens == (Opened("testcases/input04.txt", "PuzzleSolver.java line 181"),)
    assert not fixed.uses_arguments and not fixed.reads_stdin
    numpy = facts_of("numpy-import")
    assert numpy.imports == (Imported("numpy", "puzzlesolver.py line 20"),)
    assert numpy.uses_arguments and numpy.language == "python"
    for correct in ("ada-c", "grace-cpp", "james-java", "guido-py"):
        facts = load(ROOT / "submissions" / correct, CONFIG).facts
        assert facts.uses_arguments and not (facts.reads_stdin or facts.opens or facts.imports)


@pytest.mark.parametrize(
    "language, text, stdin, arguments, opened",
    [
        ("c", "int main() { char s[9]; fgets(s, 9, stdin); }", "fgets", False, []),
        ("cpp", "int main() { std::string s; std::cin >> s; }", "std::cin", False, []),
        (
            "java",
            "static void main(String[] a) { new Scanner(System.in); }",
            "System.in",
            False,
            [],
        ),
        ("python", "import sys\nfor line in sys.stdin: pass\n", "sys.stdin", False, []),
        ("python", "tiles = [input() for _ in range(9)]\n", "input()", False, []),
        ("python", "import sys\nopen(sys.argv[1])\n", "", True, []),
        ("python", "open('puzzle.txt')\nopen('log.txt', 'w')\n", "", False, ["puzzle.txt"]),
        (
            "c",
            'int main(int argc, char *argv[]) { fopen("in.txt", "r"); fopen("o", "w"); }',
            "",
            False,  # argv is declared, never read
            ["in.txt"],
        ),
        (
            "c",
            'int main(int c, char **v) { fopen(v[1], "r"); /* fopen("x", "r") */ }',
            "",
            True,
            [],
        ),
        ("cpp", 'int main() { std::ifstream in("tiles.txt"); }', "", False, ["tiles.txt"]),
        ("java", 'void main(String... args) { Path.of("p.txt"); }', "", False, ["p.txt"]),
        ("java", "void main(String args[]) { new File(args[0]); }", "", True, []),
    ],
)
def test_where_a_program_reads_its_puzzle(language, text, stdin, arguments, opened):
    name = {"c": "p.c", "cpp": "p.cpp", "java": "P.java", "python": "p.py"}[language]
    facts = program_facts({name: text}, language)
    assert (facts.reads_stdin, facts.uses_arguments) == (stdin, arguments)
    assert [o.name for o in facts.opens] == opened


def test_imports_that_are_python_own_the_programs_own_or_the_courses_are_fine():
    files = {
        "puzzlesolver.py": "import sys, numpy.linalg\nfrom board import draw\nimport sympy\n"
        "try:\n    import yaml\nexcept ImportError:\n    yaml = None\n",
        "board.py": "from collections import deque\ndef draw(b): pass\n",
    }
    facts = program_facts(files, "python", packages=("sympy",))
    assert facts.imports == (Imported("numpy", "puzzlesolver.py line 1"),)
    assert facts.packages == ("sympy",)


def test_the_course_lists_the_packages_it_installs(tmp_path):
    course = tmp_path / "course.toml"
    course.write_text('[languages.python]\npackages = ["numpy"]\n')
    config = load_config(course)
    assert config.python_packages == ("numpy",)
    assert load(MISTAKES / "numpy-import", config).facts.imports == ()
    # The list changes no verdict, so no content hash: nothing is graded again for it.
    assert load(MISTAKES / "numpy-import", config).content_hash == (
        load(MISTAKES / "numpy-import", CONFIG).content_hash
    )
    course.write_text('[languages.python]\npackages = "numpy"\n')
    with pytest.raises(ConfigError, match="languages.python.packages': must be a list"):
        load_config(course)
    course.write_text('[languages.c]\npackages = ["x"]\n')
    with pytest.raises(ConfigError, match="unknown key 'languages.c.packages'"):
        load_config(course)


STDIN_CAUSE = (
    "the program reads its puzzle from standard input (scanf), but the grader passes the "
    "puzzle file's path as the first command-line argument (argv[1]) and gives it an "
    "empty standard input"
)


@pytest.mark.parametrize(
    "program, verdict, kind, text",
    [
        ("reads-stdin", Verdict.WA, "input-stdin", STDIN_CAUSE),
        ("reads-stdin", Verdict.TLE, "input-stdin", STDIN_CAUSE),
        (
            "fixed-path",
            Verdict.RTE,
            "input-fixed-path",
            'the program opens the fixed file "testcases/input04.txt" (PuzzleSolver.java '
            "line 181) instead of the puzzle it is given: the grader passes each puzzle's "
            "path as the first command-line argument (args[0]), and no such file is where "
            "the program runs",
        ),
        (
            "numpy-import",
            Verdict.RTE,
            "module-missing",
            "puzzlesolver.py line 20 imports numpy, which is not available for grading: "
            "the grading machine runs Python with its standard library only",
        ),
    ],
)
def test_the_cause_each_mistake_points_to(program, verdict, kind, text):
    cause = root_cause(verdict, facts_of(program))
    assert cause is not None and (cause.kind, cause.text) == (kind, text)


def test_no_cause_is_told_where_none_applies():
    numpy = facts_of("numpy-import")
    assert root_cause(Verdict.WA, numpy) is None  # it ran: the import worked there
    stdin = facts_of("reads-stdin")
    for verdict in (Verdict.AC, Verdict.PE, Verdict.CE, Verdict.IE):
        assert root_cause(verdict, stdin) is None
    assert root_cause(Verdict.WA, load(ROOT / "submissions" / "ada-c", CONFIG).facts) is None


def test_a_courses_packages_are_named_in_the_message():
    facts = program_facts({"p.py": "import numpy\nimport scipy\n"}, "python", ("sympy", "yaml"))
    cause = root_cause(Verdict.RTE, facts)
    assert cause is not None and cause.text == (
        "it imports numpy and scipy (p.py line 1 first), which are not available for "
        "grading: the grading machine runs Python with its standard library and the "
        "course's packages (sympy, yaml)"
    )


def test_the_cause_is_told_before_the_symptoms_and_is_the_failures_kind():
    # What tests/mistakes/reads-stdin prints with an empty standard input: NUL edges.
    case = Case(SAMPLE)
    listing = b"Input tiles:\n" + b"".join(
        b"%d. <\0\0, \0\0, \0\0, \0\0>\n" % k for k in range(1, 10)
    )
    printed = result(listing + b"\nNo solution found.\n")
    manifest_case = ManifestCase("c", Path("in"), Path("out"), "hidden", 1, False, (), (), "v")
    plain = judge(printed, manifest_case, case.expected, SAMPLE.encode(), Limits())
    told = judge(
        printed, manifest_case, case.expected, SAMPLE.encode(), Limits(), facts_of("reads-stdin")
    )
    assert plain.kind == "WA/count-line" and told.kind == "WA/input-stdin"
    assert told.diagnosis == STDIN_CAUSE + "\n" + plain.diagnosis
    crash = judge(result(exit_code=1), manifest_case, case.expected, b"", Limits())
    assert crash.kind == "RTE/exit"


def test_a_traceback_names_the_programs_files_as_the_submission_does(tmp_path):
    build = tmp_path / "builds" / "0123abcd"
    build.mkdir(parents=True)
    (build / "puzzlesolver.py").write_text("import numpy\n")
    puzzle, expected = tmp_path / "in.txt", tmp_path / "out.txt"
    puzzle.write_text(SAMPLE)
    expected.write_bytes(Case(SAMPLE).expected)
    traceback = (
        f'Traceback (most recent call last):\n  File "{build}/puzzlesolver.py", line 1, in '
        '<module>\n  File "/tmp/sandbox-q1/build/puzzlesolver.py", line 1\n'
        "ModuleNotFoundError: No module named 'numpy'\n"
    ).encode()
    sandbox = FakeSandbox(on_run=lambda request: result(exit_code=1, stderr=traceback))
    case = ManifestCase("c", puzzle, expected, "public", 1, False, (), (), "v")
    judgement = run_in(build, CONFIG.languages["python"], case, sandbox, Limits())
    assert str(tmp_path) not in judgement.diagnosis and "/tmp/sandbox-q1" not in judgement.diagnosis
    assert 'File "puzzlesolver.py", line 1, in <module>' in judgement.diagnosis
    assert judgement.result is not None and str(tmp_path).encode() not in judgement.result.stderr


# ------------------------------------------------------------------ how a program ends


@pytest.mark.parametrize(
    "name, text, field, what",
    [
        ("p.c", 'int main(int c, char **v) { puts("x"); _exit(0); }', "abrupt_exit", "_exit"),
        ("p.cpp", "int main() { std::quick_exit(0); }", "abrupt_exit", "quick_exit"),
        ("p.py", "import os\nprint(1)\nos._exit(0)\n", "abrupt_exit", "os._exit(0)"),
        (
            "P.java",
            "class P { static void main(String[] a) { PrintWriter o = new PrintWriter(System.out);"
            ' if (a.length != 1) System.exit(1); o.print("x"); System.exit(0); } }',
            "abrupt_exit",
            "System.exit(0)",
        ),
        (
            "p.c",
            'int main(int c, char **v) { if (c != 2) return 1; printf("x"); return n; }',
            "exit_status",
            "return n;",
        ),
        ("p.c", "int main() { exit(count); }", "exit_status", "exit(count)"),
        (
            "p.py",
            'import sys\nif len(sys.argv) != 2:\n    sys.exit("usage")\nsys.exit(len(found))\n',
            "exit_status",
            "sys.exit(len(found))",
        ),
        (
            "P.java",
            "class P { static void main(String[] a) { System.exit(found.size()); } }",
            "exit_status",
            "System.exit(found.size())",
        ),
        (
            "p.cpp",
            'int main() { std::ios::sync_with_stdio(false); printf("a"); std::cout << 1; }',
            "mixed_streams",
            "printf and cout after sync_with_stdio(false)",
        ),
        (
            "p.c",
            'int main() { printf("a"); write(1, b, n); }',
            "mixed_streams",
            "printf and write(1, ...)",
        ),
        (
            "P.java",
            "class P { static void main(String[] a) { var o = new BufferedOutputStream(System.out);"
            ' System.out.print("x"); } }',
            "mixed_streams",
            "System.out and a writer of its own over it",
        ),
        (
            "p.py",
            'import sys\nprint("a")\nsys.stdout.buffer.write(b"b")\n',
            "mixed_streams",
            "print and sys.stdout.buffer.write",
        ),
        ("P.java", "package solver;\nclass P {}", "package", "package solver;"),
        ("p.py", 'import sys\nprint "tiles"\n', "python2", 'print "tiles"'),
    ],
)
def test_what_the_source_shows_of_how_a_program_ends(name, text, field, what):
    language = {"c": "c", "cpp": "cpp", "java": "java", "py": "python"}[name.rsplit(".", 1)[1]]
    found = getattr(program_facts({name: text}, language), field)
    assert found is not None and found.what == what, found


@pytest.mark.parametrize(
    "text",
    [
        'int main(int c, char **v) { if (c != 2) return 1; puts("x"); return 0; }',
        'int main() { std::cout << 1; printf("x"); }',  # synced: one order
        "import sys\nprint(1)\nsys.exit(0)\n",
    ],
)
def test_nothing_is_found_where_the_program_ends_well(text):
    name = "p.py" if text.startswith("import") else "p.cpp"
    facts = program_facts({name: text}, "python" if name == "p.py" else "cpp")
    assert facts.abrupt_exit is facts.mixed_streams is None
    assert facts.exit_status is None or facts.exit_status.what == "return 1;"


def test_the_right_output_with_a_bad_status_names_the_statement():
    facts = program_facts({"p.c": "int main(int c, char **v) { return count; }"}, "c")
    cause = root_cause(Verdict.RTE, facts, "RTE/exit", right_output=True)
    assert cause is not None and cause.kind == "exit-status"
    assert "return count; (p.c line 1) sets it. End main with return 0" in cause.text
    assert root_cause(Verdict.RTE, facts, "RTE/exit") is None  # the output was wrong too


@pytest.mark.parametrize(
    "text",
    [
        "import sys\nsys.exit(main())\n",
        "import os\r\nos._exit(\r\n    3)\r\n",  # Windows line ends, a call over two lines
        "import sys\rprint('é→')\rsys.exit('ça ne va pas')\r",  # old Mac ends, UTF-8
        "x = 1\f\nquit(x  +\n  2)  # a form feed ends no line",
        "exit('''a\r\nb''' + 'é')\n",  # a string holding a line end
    ],
)
def test_a_calls_source_is_read_as_pythons_own_ast_reads_it(text):
    """source_facts splits the source once; what it shows of each call is what
    ast.get_source_segment shows (which splits it again for every call)."""
    lines = _source_lines(text)
    nodes = [n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.expr)]
    assert len(nodes) > 3
    for node in nodes:
        assert _segment(lines, node) == ast.get_source_segment(text, node), ast.dump(node)
