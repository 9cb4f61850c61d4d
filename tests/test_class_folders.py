"""Real class folders (issue 11): identical submissions, extra files, odd names,
error output, entries that are not submissions. Real compilers, the real sandbox."""

import shutil

from grader.cases import load_cases
from grader.config import load_config
from grader.grading import execute, plan
from grader.sandbox import make_sandbox
from grader.score import report
from grader.store import Store
from grader.submissions import discover
from tests.helpers import ROOT, SAMPLE, make_cases

EXAMPLES = {"c": "ada-c", "cpp": "grace-cpp", "java": "james-java", "python": "guido-py"}


def grade(tmp_path, klass, manifest, jobs=2, force=False, config=None):
    config = config or load_config()
    cases = load_cases(manifest)
    subs = discover(klass, config)
    with Store(tmp_path / "results.db") as store:
        work = plan(subs, cases, store, force=force)
        execute(work, store, make_sandbox("auto"), config, tmp_path / "builds", jobs=jobs,
                force=force)
        return {s.id: report(store, store.submission(s.id), cases) for s in subs}


def test_identical_submissions_share_one_build_under_parallel_jobs(tmp_path):
    manifest = make_cases(tmp_path / "cases", {"sample": SAMPLE.read_text()})
    klass = tmp_path / "class"
    for language, example in EXAMPLES.items():
        for copy in range(4):
            shutil.copytree(ROOT / "submissions" / example, klass / f"{language}-{copy}")
    for force in (False, True):
        reports = grade(tmp_path, klass, manifest, jobs=2, force=force)
        verdicts = {sid: [o.verdict for o in r.outcomes] for sid, r in reports.items()}
        assert all(v == ["AC"] for v in verdicts.values()), verdicts
    # one build folder per content, no temporary folder left behind
    builds = sorted(p.name for p in (tmp_path / "builds").iterdir() if not p.name.endswith(".lock"))
    assert len(builds) == 4 and not any(name.startswith(".tmp") for name in builds), builds


CPP_HEADER = '#pragma once\ninline int ExitStatus() { return 0; }\n'
CPP_HELPER = 'int HelperStatus() { return 0; }\n'


def _multi_file_class(klass):
    """A C++ program with its own header (and one with a second .cpp file), a
    Python program split into modules, a Java program in two classes."""
    grace = (ROOT / "submissions/grace-cpp/puzzlesolver.cpp").read_text()
    header = klass / "cpp-header"
    header.mkdir(parents=True)
    (header / "puzzlesolver.cpp").write_text(
        '#include "puzzlesolver.h"\n' + grace.replace("return 0;\n}", "return ExitStatus();\n}"))
    (header / "puzzlesolver.h").write_text(CPP_HEADER)
    (header / "notes.txt").write_text("my notes")
    (header / "a.out").write_bytes(b"\x7fELF\x00")
    (header / "old").mkdir()
    py = klass / "py-modules"
    py.mkdir()
    (py / "puzzlesolver.py").write_text("import sys\nfrom solver_main import main\n"
                                        "sys.exit(main())\n")
    reference = (ROOT / "reference/puzzlesolver.py").read_text()
    (py / "solver_main.py").write_text(reference.replace('if __name__ == "__main__":',
                                                         'if False:'))
    java = klass / "java-classes"
    java.mkdir()
    (java / "PuzzleSolver.java").write_text(
        "public class PuzzleSolver {\n  public static void main(String[] args) throws Exception"
        " {\n    Solver.main(args);\n  }\n}\n")
    james = (ROOT / "submissions/james-java/PuzzleSolver.java").read_text()
    (java / "Solver.java").write_text(james.replace("public final class PuzzleSolver",
                                                    "final class Solver")
                                      .replace("PuzzleSolver(", "Solver(")
                                      .replace("PuzzleSolver solver", "Solver solver"))
    return klass


def test_extra_files_of_the_language_are_used_and_the_rest_listed(tmp_path):
    manifest = make_cases(tmp_path / "cases", {"sample": SAMPLE.read_text()})
    klass = _multi_file_class(tmp_path / "class")
    reports = grade(tmp_path, klass, manifest)
    verdicts = {sid: [o.verdict for o in r.outcomes] for sid, r in reports.items()}
    assert verdicts == {"cpp-header": ["AC"], "py-modules": ["AC"], "java-classes": ["AC"]}, \
        {sid: (r.build_status, [o.run.diagnosis for o in r.outcomes]) for sid, r in reports.items()}
    cpp = reports["cpp-header"]
    assert cpp.files_used == ["puzzlesolver.cpp", "puzzlesolver.h"]
    ignored = dict(cpp.files_ignored)
    assert set(ignored) == {"notes.txt", "a.out", "old/"}
    assert "not a source or header file" in ignored["notes.txt"]
    assert "folder" in ignored["old/"]
    assert reports["py-modules"].files_used == ["puzzlesolver.py", "solver_main.py"]


def test_extra_files_policy_none_uses_the_main_file_only(tmp_path):
    manifest = make_cases(tmp_path / "cases", {"sample": SAMPLE.read_text()})
    klass = _multi_file_class(tmp_path / "class")
    course = tmp_path / "course.toml"
    course.write_text('[submissions]\nextra_files = "none"\n')
    reports = grade(tmp_path, klass, manifest, config=load_config(course))
    cpp = reports["cpp-header"]
    assert [o.verdict for o in cpp.outcomes] == ["CE"]
    assert "puzzlesolver.h" in cpp.build.log
    assert cpp.files_used == ["puzzlesolver.cpp"]
    assert dict(cpp.files_ignored)["puzzlesolver.h"] == "the course uses the main file only"
    assert [o.verdict for o in reports["py-modules"].outcomes] == ["RTE"]


def test_sources_placeholder_compiles_every_source_file(tmp_path):
    manifest = make_cases(tmp_path / "cases", {"sample": SAMPLE.read_text()})
    klass = tmp_path / "class"
    folder = klass / "cpp-two"
    folder.mkdir(parents=True)
    grace = (ROOT / "submissions/grace-cpp/puzzlesolver.cpp").read_text()
    (folder / "puzzlesolver.cpp").write_text(
        "int HelperStatus();\n" + grace.replace("return 0;\n}", "return HelperStatus();\n}"))
    (folder / "helper.cpp").write_text(CPP_HELPER)
    course = tmp_path / "course.toml"
    course.write_text('[languages.cpp]\nbuild = ["g++", "-O2", "-o", "puzzlesolver", '
                      '"{sources}"]\n')
    reports = grade(tmp_path, klass, manifest, config=load_config(course))
    assert [o.verdict for o in reports["cpp-two"].outcomes] == ["AC"]
    assert reports["cpp-two"].files_used == ["puzzlesolver.cpp", "helper.cpp"]


PY_DEBUG_THEN_CRASH = '''
import sys
for i in range(1500):  # 37 KB: under the sandbox's stderr cap
    print("debug: trying tile", i, file=sys.stderr)
raise ValueError("the real reason is here")
'''

PY_REASON_ON_STDOUT = '''
import sys
print("can't find input.txt")
sys.exit(3)
'''


def test_error_output_shows_its_end_and_the_reason_printed_on_stdout(tmp_path):
    manifest = make_cases(tmp_path / "cases", {"sample": SAMPLE.read_text()})
    klass = tmp_path / "class"
    for sid, source in (("debug", PY_DEBUG_THEN_CRASH), ("stdout", PY_REASON_ON_STDOUT)):
        (klass / sid).mkdir(parents=True)
        (klass / sid / "puzzlesolver.py").write_text(source)
    reports = grade(tmp_path, klass, manifest)
    debug = reports["debug"].outcomes[0].run
    assert debug.verdict == "RTE"
    assert "ValueError: the real reason is here" in debug.diagnosis, debug.diagnosis
    assert "debug: trying tile 1499" in debug.diagnosis
    assert "trying tile 10\n" not in debug.diagnosis
    stdout = reports["stdout"].outcomes[0].run
    assert stdout.verdict == "RTE" and stdout.exit_code == 3
    assert "can't find input.txt" in stdout.diagnosis, stdout.diagnosis
