"""Real class folders (issue 11): identical submissions, extra files, odd names,
error output, entries that are not submissions. Real compilers, the real sandbox."""

import shutil

from grader.cases.manifest import load_cases
from grader.course.config import load_config
from grader.grading.session import execute, plan
from grader.intake.submissions import discover
from grader.judge.score import report
from grader.sandbox import make_sandbox
from grader.store import Store
from tests.helpers import (
    CPP_HELPER,
    ROOT,
    SAMPLE,
    assert_valid,
    gradescope_isolation,
    make_cases,
    multi_file_class,
)

EXAMPLES = {"c": "ada-c", "cpp": "grace-cpp", "java": "james-java", "python": "guido-py"}


def grade(tmp_path, klass, manifest, jobs=2, force=False, config=None):
    config = config or load_config()
    cases = load_cases(manifest)
    subs = discover(klass, config)
    with Store(tmp_path / "results.db") as store:
        work = plan(subs, cases, store, force=force)
        execute(
            work, store, make_sandbox("auto"), config, tmp_path / "builds", jobs=jobs, force=force
        )
        return {s.id: report(store, store.submission(s.id), cases) for s in subs}


def test_identical_submissions_share_one_build_under_parallel_jobs(tmp_path):
    manifest = make_cases(tmp_path / "cases", {"sample": SAMPLE.read_text()})
    klass = tmp_path / "class"
    for language, example in EXAMPLES.items():
        for copy in range(4):
            shutil.copytree(ROOT / "submissions" / example, klass / f"{language}-{copy}")
    # A temporary folder left by a grader killed while building one of these: swept.
    digest = discover(klass, load_config())[0].content_hash
    (tmp_path / "builds" / f".tmp-{digest[:16]}-killed").mkdir(parents=True)
    for force in (False, True):
        reports = grade(tmp_path, klass, manifest, jobs=2, force=force)
        verdicts = {sid: [o.verdict for o in r.outcomes] for sid, r in reports.items()}
        assert all(v == ["AC"] for v in verdicts.values()), verdicts
    # one build folder per content, no temporary folder left behind
    builds = sorted(p.name for p in (tmp_path / "builds").iterdir() if p.is_dir())
    assert len(builds) == 4 and not any(name.startswith(".tmp") for name in builds), builds
    records = {p.name for p in (tmp_path / "builds").glob("*.build.json")}
    assert records == {f"{name}.build.json" for name in builds}  # beside each, not in it


def test_extra_files_of_the_language_are_used_and_the_rest_listed(tmp_path):
    manifest = make_cases(tmp_path / "cases", {"sample": SAMPLE.read_text()})
    klass = multi_file_class(tmp_path / "class")
    reports = grade(tmp_path, klass, manifest)
    verdicts = {sid: [o.verdict for o in r.outcomes] for sid, r in reports.items()}
    assert verdicts == {"cpp-header": ["AC"], "py-modules": ["AC"], "java-classes": ["AC"]}, {
        sid: (r.build_status, [o.run.diagnosis for o in r.outcomes]) for sid, r in reports.items()
    }
    cpp = reports["cpp-header"]
    assert cpp.files_used == ["puzzlesolver.cpp", "puzzlesolver.h"]
    ignored = dict(cpp.files_ignored)
    assert set(ignored) == {"notes.txt", "a.out", "old/"}
    assert "not a source or header file" in ignored["notes.txt"]
    assert "folder" in ignored["old/"]
    assert reports["py-modules"].files_used == ["puzzlesolver.py", "solver_main.py"]


def test_extra_files_policy_none_uses_the_main_file_only(tmp_path):
    manifest = make_cases(tmp_path / "cases", {"sample": SAMPLE.read_text()})
    klass = multi_file_class(tmp_path / "class")
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
        "int HelperStatus();\n" + grace.replace("return 0;\n}", "return HelperStatus();\n}")
    )
    (folder / "helper.cpp").write_text(CPP_HELPER)
    course = tmp_path / "course.toml"
    course.write_text(
        '[languages.cpp]\nbuild = ["g++", "-O2", "-o", "puzzlesolver", "{sources}"]\n'
    )
    reports = grade(tmp_path, klass, manifest, config=load_config(course))
    assert [o.verdict for o in reports["cpp-two"].outcomes] == ["AC"]
    assert reports["cpp-two"].files_used == ["puzzlesolver.cpp", "helper.cpp"]


PY_DEBUG_THEN_CRASH = """
import sys
for i in range(1500):  # 37 KB: under the sandbox's stderr cap
    print("debug: trying tile", i, file=sys.stderr)
raise ValueError("the real reason is here")
"""

PY_REASON_ON_STDOUT = """
import sys
print("can't find input.txt")
sys.exit(3)
"""


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


# ------------------------------------------------------------------ odd names, odd entries

import csv  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import zipfile  # noqa: E402

GRADER = [sys.executable, "-m", "grader"]
ESCAPE = "esc\x1b[31mred\x1b]0;title\x07"
LONG = "x" * 251 + ".dir"  # 255 bytes: the longest name a folder can have


def _run(args, **kw):
    return subprocess.run(
        GRADER + [os.fsencode(a) if isinstance(a, bytes) else str(a) for a in args],
        cwd=ROOT,
        capture_output=True,
        timeout=300,
        **kw,
    )


def _odd_class(tmp_path):
    klass = tmp_path / "class"
    klass.mkdir()
    guido = ROOT / "submissions/guido-py/puzzlesolver.py"
    raw = os.fsencode(klass)
    for name in (
        b"caf\xe9-latin1",
        ESCAPE.encode(),
        b"=2+3",
        b"<img src=x onerror=alert(1)>",
        LONG.encode(),
    ):
        os.mkdir(raw + b"/" + name)
        shutil.copyfile(guido, os.fsdecode(raw + b"/" + name + b"/puzzlesolver.py"))
    os.mkdir(raw + b"/windows-zip")
    with open(raw + b"/windows-zip/\xdcbung.py", "wb") as handle:
        handle.write(b"print('hallo')\n")
    (klass / ".dot-folder").mkdir()
    shutil.copyfile(guido, klass / ".dot-folder" / "puzzlesolver.py")
    (klass / ".git").mkdir()
    os.symlink("loop", klass / "loop")
    os.symlink("nowhere", klass / "dangling")
    with zipfile.ZipFile(klass / "amy.zip", "w") as archive:
        archive.writestr("puzzlesolver.py", "print()")
    return klass


def test_odd_names_and_entries_are_graded_or_listed_and_always_escaped(tmp_path):
    manifest = make_cases(tmp_path / "cases", {"sample": SAMPLE.read_text()})
    klass = _odd_class(tmp_path)
    results = tmp_path / "results"
    done = _run(["--manifest", manifest, "grade", klass, "--results", results, "--jobs", "2"])
    out, err = done.stdout.decode(), done.stderr.decode()
    assert done.returncode == 0, err
    assert "\x1b" not in out + err and "\x07" not in out + err
    data = json.loads((results / "results.json").read_text())
    assert_valid(data, "results")
    subs = {s["id"]: s for s in data["submissions"]}
    for sid in (
        "caf\\xe9-latin1",
        "esc\\x1b[31mred\\x1b]0;title\\x07",
        "=2+3",
        "<img src=x onerror=alert(1)>",
        LONG,
        ".dot-folder",
    ):
        assert [c["verdict"] for c in subs[sid]["cases"]] == ["AC"], sid
    assert (  # a script: the likely entry point
        "no file is named puzzlesolver.py: \\xdcbung.py runs as a script, the likely entry "
        "point: name it puzzlesolver.py" in subs["windows-zip"]["build"]["status"]
    )
    assert "loops" in subs["loop"]["build"]["status"]
    assert "nowhere, which does not exist" in subs["dangling"]["build"]["status"]
    assert "an archive" in subs["amy.zip"]["build"]["status"]
    assert ".git: not graded: hidden folder without a source file" in err
    assert data["skipped"] == [{"name": ".git", "reason": "hidden folder without a source file"}]
    assert "esc\\x1b[31mred" in out and "caf\\xe9-latin1" in out

    shown = _run(
        ["--manifest", manifest, "show", "esc\\x1b[31mred\\x1b]0;title\\x07", "--results", results]
    )
    assert shown.returncode == 0 and b"\x1b" not in shown.stdout, shown.stderr
    missing = _run(["--manifest", manifest, "show", ESCAPE + "x", "--results", results])
    assert missing.returncode == 2 and b"\x1b" not in missing.stderr

    gradebook = tmp_path / "grades.csv"
    assert (
        _run(["--manifest", manifest, "export", "csv", gradebook, "--results", results]).returncode
        == 0
    )
    ids = [row[0] for row in csv.reader(gradebook.read_text(encoding="utf-8").splitlines())]
    assert "'=2+3" in ids and "=2+3" not in ids

    pages = tmp_path / "pages"
    done = _run(["--manifest", manifest, "export", "html", pages, "--results", results])
    assert done.returncode == 0, done.stderr
    names = os.listdir(pages)
    assert all(len(os.fsencode(name)) <= 120 for name in names), names
    assert len(names) == len(subs) + 1  # a page each, and the index


def test_check_names_the_only_misnamed_file(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "Puzzlesolver.py").write_text("print()\n")
    done = _run(["check", folder])
    assert (
        "Puzzlesolver.py runs as a script, the likely entry point: name it puzzlesolver.py"
        in done.stdout.decode() + done.stderr.decode()
    )
    (folder / "Puzzlesolver.py").write_text("def solve(tiles):\n    return []\n")
    done = _run(["check", folder])  # not a script: the file is named all the same
    assert (
        "found Puzzlesolver.py, but the file must be named puzzlesolver.py"
        in done.stdout.decode() + done.stderr.decode()
    )
    raw = os.fsencode(tmp_path) + b"/latin1"
    os.mkdir(raw)
    with open(raw + b"/\xdcbung.py", "wb") as handle:
        handle.write(b"print()\n")
    done = _run(["check", raw])
    text = done.stdout.decode() + done.stderr.decode()
    assert "Traceback" not in text and "\\xdcbung.py runs as a script" in text, text


def test_gradescope_runner_survives_a_latin1_file_name(tmp_path):
    from grader.lms.gradescope.runner import main as autograder

    manifest = make_cases(tmp_path / "source" / "testcases", {"sample": SAMPLE.read_text()})
    assert manifest.exists()
    raw = os.fsencode(tmp_path) + b"/submission"
    os.mkdir(raw)
    with open(raw + b"/\xdcbung.py", "wb") as handle:
        handle.write(b"print()\n")
    code = autograder(
        [
            "--source",
            str(tmp_path / "source"),
            "--submission",
            os.fsdecode(raw),
            "--results",
            str(tmp_path / "out"),
            "--jobs",
            "1",
        ]
    )
    assert code == 0
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    assert "\\xdcbung.py" in json.dumps(data)


def test_leaderboard_markdown_shows_names_as_text():
    from grader.leaderboard.page_md import markdown, terminal
    from tests.helpers import tiny_document

    doc = tiny_document()
    doc["ranked"][0]["id"] = "<img src=x onerror=alert(1)>"
    doc["not_eligible"][0]["id"] = "[click](http://evil.example)\x1b[2J"
    text = markdown(doc)
    assert "`<img src=x onerror=alert(1)>`" in text  # a code span: GitHub shows it as text
    assert "`[click](http://evil.example)\\x1b[2J`" in text
    assert "\x1b" not in text and "\x1b" not in terminal(doc)


# ------------------------------------------------------------------ huge outputs


def test_judging_a_million_short_lines_holds_no_line_objects():
    """Memory, not time (bench/bench_judging.py prints the CPU figures): an output
    of a million short lines is judged without a million Python objects."""
    import tracemalloc

    from grader.judge.compare import compare
    from tests.helpers import SAMPLE_EXPECTED

    for output in (
        b"x\n" * 1_000_000,
        SAMPLE_EXPECTED + b"ab \n" * 500_000,
        b"\n" * 1_000_000 + SAMPLE_EXPECTED,
        b"1 unique solution found:\n" * 80_000,
    ):
        tracemalloc.start()
        try:
            result = compare(SAMPLE_EXPECTED, output, SAMPLE.read_bytes())
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert result.verdict in ("WA", "PE")
        assert peak < 6 * len(output) + (4 << 20), (output[:20], peak)


def test_a_flood_of_junk_lines_is_reported_as_read_up_to_a_point():
    from grader.cases.puzzle import MAX_SLOW_LINES
    from grader.judge.compare import compare, same_tokens
    from tests.helpers import SAMPLE_EXPECTED

    result = compare(
        SAMPLE_EXPECTED, SAMPLE_EXPECTED + b"+debug\n" * (3 * MAX_SLOW_LINES), SAMPLE.read_bytes()
    )
    text = result.text()
    assert "line 40 is not part of the required output" in text
    assert "not read one by one" in text
    for a, b in (
        (b"a b", b" a\n\nb "),
        (b"a" * 300_000 + b" b", b"a" * 300_000 + b"\nb"),
        (b"ab", b"a b"),
        (b"", b" \n"),
        (b"a", b""),
    ):
        assert same_tokens(a, b) == (a.split() == b.split())


# ------------------------------------------------------------------ policy-dependent cases

# Tile 9 looks the same turned by 180 degrees; one solution (SYMMETRIC_PUZZLE in tests/helpers.py).
SYMMETRIC = (
    "A0,B1,C0,C0\nC1,A0,A0,C0\nC0,C1,B0,A1\nB1,C1,A0,A1\nA0,B0,A0,A0\nA0,A1,B0,B1\n"
    "B1,C0,A0,A1\nC1,C1,B0,B0\nC0,B1,C0,B1\n"
)
NAIVE = """
import sys
# A solver that prints a symmetric tile's look-alike placements as two solutions.
puzzle = open(sys.argv[1]).read()
sys.stdout.write(DOUBLED if puzzle == SYMMETRIC else SAMPLE_OUT)
"""


def _policy_class(tmp_path):
    from tests.helpers import SAMPLE_EXPECTED
    from tests.helpers import PuzzleCase as Case

    manifest = make_cases(tmp_path / "cases", {"sample": SAMPLE.read_text(), "sym": SYMMETRIC})
    data = json.loads(manifest.read_text())
    data["cases"][1]["policy"] = ["symmetric-tiles"]
    data["cases"][1]["weight"] = 3
    manifest.write_text(json.dumps(data))
    symmetric = Case(SYMMETRIC)  # the board twice, "2 unique solutions found:"
    doubled = symmetric.render(symmetric.boards * 2).decode()
    folder = tmp_path / "class" / "naive"
    folder.mkdir(parents=True)
    (folder / "puzzlesolver.py").write_text(
        f"DOUBLED = {doubled!r}\nSYMMETRIC = {SYMMETRIC!r}\n"
        f"SAMPLE_OUT = {SAMPLE_EXPECTED.decode()!r}\n" + NAIVE
    )
    return manifest


def test_policy_dependent_cases_are_shown_apart_everywhere_and_scored_as_configured(tmp_path):
    from grader.exports.feedback_html import render_page
    from grader.exports.gradebook_csv import render
    from grader.lms.gradescope import autograder as gradescope
    from grader.results.results_json import results_document
    from grader.results.terminal import case_report, score_line, summary_table

    manifest = _policy_class(tmp_path)
    cases = load_cases(manifest)
    grade(tmp_path, tmp_path / "class", manifest)
    expect = {
        "count": ("1/4", "3 lost on policy-dependent cases"),
        "apart": ("1/1", "policy-dependent cases apart: 0/3"),
        "forgive": ("4/4", "3 forgiven on policy-dependent cases"),
    }
    with Store(tmp_path / "results.db") as store:
        for mode, (score, note) in expect.items():
            result = report(store, store.submission("naive"), cases, mode)
            assert [o.verdict for o in result.outcomes] == ["AC", "WA"]
            assert result.policy_note == note
            table = summary_table([result])
            assert score in table and note in table and "policy-dependent" in table
            assert note in score_line(result, "") and score in score_line(result, "")
            assert "sym (policy-dependent" in case_report(result, instructor=True)
            doc = results_document([result], cases)
            assert_valid(doc, "results")
            entry = doc["submissions"][0]
            assert entry["policy"]["mode"] == mode and entry["policy"]["note"] == note
            assert f"{entry['score']:g}/{entry['max_score']:g}" == score
            assert [c["policy_failure"] for c in entry["cases"]] == [False, True]
            head, row = list(csv.reader(render([result], cases).splitlines()))[:2]
            assert row[head.index("policy_dependent")] == note
            assert note in render_page(result, store, student=False, generated="now")
            scope = gradescope.gradescope_results(
                result, isolation=gradescope_isolation(), execution_time=1
            )
            assert_valid(scope, "gradescope_results")
            test = scope["tests"][1]
            assert "policy-dependent" in test["tags"] and "policy-dependent" in test["name"]
            total = sum(t["score"] for t in scope["tests"])
            assert f"{total:g}/{sum(t['max_score'] for t in scope['tests']):g}" == score


def test_policy_cases_setting_is_checked(tmp_path):
    from grader.course.config import ConfigError

    course = tmp_path / "course.toml"
    course.write_text('[scoring]\npolicy_cases = "forgive"\n')
    assert load_config(course).policy_cases == "forgive"
    course.write_text('[scoring]\npolicy_cases = "ignore"\n')
    try:
        load_config(course)
    except ConfigError as error:
        assert "scoring.policy_cases" in str(error) and "count, apart or forgive" in str(error)
    else:
        raise AssertionError("a bad policy_cases was accepted")


def test_a_build_that_fails_on_the_grading_machine_is_ie_and_never_cached(tmp_path):
    manifest = make_cases(tmp_path / "cases", {"sample": SAMPLE.read_text()})
    klass = tmp_path / "class"
    for copy in range(2):
        shutil.copytree(ROOT / "submissions" / "ada-c", klass / f"c-{copy}")
    course = tmp_path / "course.toml"
    course.write_text(
        '[languages.c]\nbuild = ["gcc-not-installed", "-o", "puzzlesolver", "puzzlesolver.c"]\n'
    )
    reports = grade(tmp_path, klass, manifest, config=load_config(course))
    for result in reports.values():
        assert [o.verdict for o in result.outcomes] == ["IE"]
        assert "'gcc-not-installed' is not installed" in result.outcomes[0].run.diagnosis
        assert result.build is None  # nothing stored, nothing cached
    assert not [p for p in (tmp_path / "builds").iterdir() if p.is_dir()]
    again = grade(tmp_path, klass, manifest)  # with the compiler there: graded, AC
    assert all([o.verdict for o in r.outcomes] == ["AC"] for r in again.values())
