"""Finding submissions and deciding their language; bad folders get a reason."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from grader.course.config import load_config
from grader.intake.submissions import SubmissionError, discover, load

pytestmark = pytest.mark.fast

CONFIG = load_config()


def folder(tmp_path, name, files):
    path = tmp_path / name
    path.mkdir()
    for fname, content in files.items():
        target = path / fname
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content if isinstance(content, bytes) else content.encode())
    return path


@pytest.mark.parametrize(
    "fname, language",
    [
        ("puzzlesolver.c", "c"),
        ("puzzlesolver.cpp", "cpp"),
        ("PuzzleSolver.java", "java"),
        ("puzzlesolver.py", "python"),
    ],
)
def test_language_from_file_name(tmp_path, fname, language):
    sub = load(folder(tmp_path, "s", {fname: "x", "README.md": "notes"}), CONFIG)
    assert sub.problem is None and sub.language.name == language
    assert sub.source.name == fname and sub.id == "s"


@pytest.mark.parametrize(
    "files, reason",
    [
        ({}, "the folder is empty"),
        ({"notes.txt": "hi"}, "no source file: expected one of puzzlesolver.c"),
        ({"puzzlesolver.c": "x", "puzzlesolver.py": "y"}, "more than one source file"),
        ({"main.c": "x"}, "found main.c, but the file must be named puzzlesolver.c"),
        ({"puzzleSolver.java": "x"}, "must be named PuzzleSolver.java"),
        (
            {"src/puzzlesolver.cpp": "x"},
            "found src/puzzlesolver.cpp, but the source file must be at the top",
        ),
        ({"puzzlesolver.c": b"\x7fELF\x00\x01"}, "not a text file"),
        ({"puzzlesolver.py": b"print('\xff')"}, "not UTF-8 text"),
    ],
)
def test_ungradable_folders_carry_a_reason(tmp_path, files, reason):
    sub = load(folder(tmp_path, "s", files), CONFIG)
    assert sub.language is None and sub.source is None
    assert reason in sub.problem


MISTAKES = Path(__file__).resolve().parent / "mistakes"


def test_a_multi_file_c_project_is_told_where_its_main_is_and_what_was_not_used():
    # A real project: main() in main.c, a 180-byte helper in edge.c, no puzzlesolver.c.
    sub = load(MISTAKES / "multi-file-c", CONFIG)
    assert sub.problem == (
        "no file is named puzzlesolver.c: main.c holds main(), the likely entry point: "
        "name it puzzlesolver.c"
    )
    assert sub.ignored == (
        ("edge.c", "not built: no file is named puzzlesolver.c"),
        ("edge.h", "not built: no file is named puzzlesolver.c or puzzlesolver.cpp"),
        ("main.c", "holds main(): the likely entry point; name it puzzlesolver.c"),
    )


@pytest.mark.parametrize(
    "files, problem",
    [
        (
            {
                "Tile.java": "class Tile { int[] edges; }",
                "Main.java": "public class Main {\n  public static void main(String[] a) {}\n}",
            },
            "no file is named PuzzleSolver.java: Main.java holds public static void main, the "
            "likely entry point: name it PuzzleSolver.java and its class PuzzleSolver",
        ),
        (
            {
                "board.py": "def draw(b):\n    return str(b)\n",
                "solve.py": "import board\n\nif __name__ == '__main__':\n    print(1)\n",
            },
            "no file is named puzzlesolver.py: solve.py runs as a script, the likely entry "
            "point: name it puzzlesolver.py",
        ),
        (
            {"src/main.cpp": "// int main() in a comment is none\nint main() { return 0; }"},
            "no file is named puzzlesolver.cpp: src/main.cpp holds main(), the likely entry "
            "point: put it at the top of the folder and name it puzzlesolver.cpp",
        ),
        (
            {"a.c": "int main(void) { return 0; }", "b.c": "int\nmain(int argc, char **argv) {}"},
            "no file is named puzzlesolver.c; the likely entry points are a.c (holds main()), "
            "b.c (holds main()): name the one that solves the puzzle as its language requires",
        ),
        (
            {"helper.c": "/* int main() */ static int twice(int x) { return 2 * x; }"},
            "found helper.c, but the file must be named puzzlesolver.c",
        ),
    ],
)
def test_the_likely_entry_point_is_named(tmp_path, files, problem):
    sub = load(folder(tmp_path, "s", files), CONFIG)
    assert sub.problem == problem


def test_every_rejected_folder_lists_its_files_with_why(tmp_path):
    two = load(
        folder(tmp_path, "two", {"puzzlesolver.c": "x", "puzzlesolver.py": "y", "notes.txt": ""}),
        CONFIG,
    )
    assert two.ignored == (
        ("notes.txt", "not a source or header file"),
        ("puzzlesolver.c", "one of 2 source files: keep exactly one"),
        ("puzzlesolver.py", "one of 2 source files: keep exactly one"),
    )
    binary = load(
        folder(tmp_path, "bin", {"puzzlesolver.c": b"\x7fELF\x00", "util.h": "", "d/x": ""}),
        CONFIG,
    )
    assert binary.ignored == (
        ("d/", "a folder: only files at the top of the folder are used"),
        ("puzzlesolver.c", "is not a text file (it contains NUL bytes)"),
        ("util.h", "not built: puzzlesolver.c cannot be used"),
    )
    nested = load(folder(tmp_path, "nested", {"src/main.c": "int main() {}", ".git": ""}), CONFIG)
    assert nested.ignored == (
        (".git", "a hidden file"),
        ("src/", "a folder: only files at the top of the folder are used (it holds src/main.c)"),
        (
            "src/main.c",
            "holds main(): the likely entry point; put it at the top of the folder and "
            "name it puzzlesolver.c",
        ),
    )


def test_symlink_pointing_outside_is_refused(tmp_path):
    secret = tmp_path / "secret.c"
    secret.write_text("int main(){}")
    path = folder(tmp_path, "s", {})
    os.symlink(secret, path / "puzzlesolver.c")
    sub = load(path, CONFIG)
    assert "symbolic link" in sub.problem and sub.language is None


def test_discover_a_class_a_folder_and_a_file(tmp_path):
    root = tmp_path / "class"
    root.mkdir()
    folder(root, "bob", {"puzzlesolver.py": "print()"})
    folder(root, "amy", {"puzzlesolver.c": "int main(){}"})
    folder(root, "empty", {})
    (root / ".hidden").mkdir()
    subs = discover(root, CONFIG)
    assert [s.id for s in subs] == ["amy", "bob", "empty"]
    assert subs[2].problem
    assert [s.id for s in discover(root / "bob", CONFIG)] == ["bob"]
    single = discover(root / "amy" / "puzzlesolver.c", CONFIG)
    assert single[0].id == "amy" and single[0].language.name == "c"
    with pytest.raises(SubmissionError, match="no such file"):
        discover(tmp_path / "missing", CONFIG)


def test_content_hash_follows_the_content(tmp_path):
    a = load(folder(tmp_path, "a", {"puzzlesolver.py": "print(1)"}), CONFIG)
    b = load(folder(tmp_path, "b", {"puzzlesolver.py": "print(1)"}), CONFIG)
    c = load(folder(tmp_path, "c", {"puzzlesolver.py": "print(2)"}), CONFIG)
    assert a.content_hash == b.content_hash != c.content_hash


GB = 1 << 30
ROOT = Path(__file__).resolve().parent.parent


def sparse(path: Path, size: int) -> Path:
    """A file of `size` bytes that takes no disk (what a student's `truncate -s` makes)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()
    os.truncate(path, size)
    return path


def test_a_huge_sparse_main_file_is_ce_with_the_limit_not_a_crash(tmp_path):
    """Read whole, 64 GB was a MemoryError that stopped the class; asked its size first,
    it is this submission's CE."""
    path = folder(tmp_path, "s", {})
    sparse(path / "puzzlesolver.c", 64 * GB)
    assert load(path, CONFIG).problem == (
        "puzzlesolver.c is 68,719,476,736 bytes; a source file may be at most 1,048,576 bytes"
    )


def test_a_huge_sparse_extra_file_is_ignored_with_the_limit(tmp_path):
    path = folder(tmp_path, "s", {"puzzlesolver.c": "int main(void){return 0;}\n"})
    sparse(path / "tables.h", 64 * GB)
    sub = load(path, CONFIG)
    assert sub.problem is None and sub.extra_files == ()
    assert dict(sub.ignored)["tables.h"] == (
        "is 68,719,476,736 bytes; a source file may be at most 1,048,576 bytes"
    )


def test_a_few_gigabytes_of_sparse_files_cost_the_grader_no_memory(tmp_path):
    """3 GB sparse files were read whole (3.2 GB resident); now only their size is."""
    root = tmp_path / "class"
    sparse(root / "a" / "puzzlesolver.c", 3 * GB)
    folder(root, "b", {"puzzlesolver.c": "int main(void){return 0;}\n"})
    sparse(root / "b" / "tables.h", 3 * GB)
    # VmHWM, not ru_maxrss: that one keeps what the forked pytest held before exec.
    script = (
        "import sys\n"
        "from grader.course.config import load_config\n"
        "from grader.intake.submissions import discover\n"
        "subs = discover(sys.argv[1], load_config())\n"
        "status = open('/proc/self/status').read().split('VmHWM:')[1]\n"
        "print(status.split()[0])\n"
        "print(subs[0].problem)\n"
        "print(subs[1].problem, subs[1].ignored)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(root)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    peak_kb, first, second = done.stdout.splitlines()
    assert "3,221,225,472 bytes; a source file may be at most" in first
    assert second.startswith("None") and "3,221,225,472 bytes" in second
    assert int(peak_kb) < 256 << 10  # kB: far below the 3 GB a whole read takes


def test_a_content_hash_is_what_it_always_was(tmp_path):
    # Python's spec carries the course's packages now (config.PythonSpec): the hash still
    # holds only the commands, as before, so no submission is graded again for it.
    import hashlib

    from grader.course.config import LanguageSpec

    source = b"print(1)\n"
    sub = load(folder(tmp_path, "s", {"puzzlesolver.py": source}), CONFIG)
    commands = LanguageSpec(
        "python", "puzzlesolver.py", (), ("python3", "puzzlesolver.py", "{input}")
    )
    assert sub.content_hash == hashlib.sha256(repr(commands).encode() + b"\0" + source).hexdigest()
