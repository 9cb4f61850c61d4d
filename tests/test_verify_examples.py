"""Expected verdicts of the example class (expected.toml) and `testcases
verify-examples`: strict declarations, the real grader (real sandbox, real
compilers) grading the examples, and a failure that names example and case."""

import shutil
from pathlib import Path

import pytest

from grader.course.config import load_config
from grader.intake.submissions import discover, load
from grader.sandbox import CGROUPS_ENV
from testcases import cli as testcases_cli
from testcases.errors import UsageError
from testcases.expected import FILE_NAME, differences, load_expected, render
from tests.helpers import LIGHTBULBS_TEXT, NO_SOLUTION, PUBLIC, ROOT, SAMPLE_TEXT, make_cases

EXAMPLES = ROOT / "submissions"
REFERENCE = ROOT / "reference" / "puzzlesolver.py"
CASE_IDS = ["sample", "lightbulbs", "none"]


def write(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / FILE_NAME).write_text(text)
    return folder


# ------------------------------------------------------------------ the declarations


def test_a_default_and_per_case_verdicts(tmp_path):
    expected = load_expected(write(tmp_path, 'verdict = "AC"\n[cases]\nnone = "WA"\n'), CASE_IDS)
    assert [expected.verdict(c) for c in CASE_IDS] == ["AC", "AC", "WA"]
    assert not expected.all_pass(CASE_IDS) and expected.all_pass(["sample"])
    assert load_expected(tmp_path / "elsewhere", CASE_IDS) is None  # nothing declared


@pytest.mark.parametrize(
    "text, message",
    [
        ('verdict = "OK"\n', "at verdict: 'OK' is not one of"),
        (
            'verdict = "IE"\n',
            "at verdict: 'IE' is not one of",
        ),  # the grader's failure, never expected
        ('verdit = "AC"\n', "Additional properties are not allowed ('verdit'"),
        ('[cases]\nsample = "AC"\n', "no verdict for case 'lightbulbs'"),
        ('verdict = "AC"\n[cases]\nsampel = "WA"\n', "names 'sampel', which is no case"),
        ('verdict = "AC"\n[cases]\nsample = 1\n', "at cases/sample: 1 is not one of"),
        ("verdict = AC\n", "not valid TOML"),
        ("", "should be non-empty"),
    ],
)
def test_a_bad_declaration_is_one_line_naming_the_file(tmp_path, text, message):
    with pytest.raises(UsageError) as error:
        load_expected(write(tmp_path, text), CASE_IDS)
    assert str(error.value).startswith(str(tmp_path / FILE_NAME) + ": ")
    assert message in str(error.value) and "\n" not in str(error.value)


def test_differences_name_the_example_and_the_case(tmp_path):
    expected = load_expected(write(tmp_path, 'verdict = "AC"\n[cases]\nnone = "WA"\n'), CASE_IDS)
    got = {"sample": "AC", "lightbulbs": "PE", "none": "WA"}
    assert differences("ex", expected, got, {"lightbulbs": "line 14 differs\nmore"}) == [
        "example 'ex', case 'lightbulbs': expected AC, got PE (line 14 differs)"
    ]
    internal = differences("ex", expected, {"sample": "IE"}, {"sample": "sandbox: boom"})
    assert internal == [
        "example 'ex', case 'sample': expected AC, got IE (sandbox: boom); "
        "IE is the grader's own failure: run again"
    ]


def test_render_declares_the_commonest_verdict_and_lists_the_rest(tmp_path):
    actual = {"sample": "PE", "lightbulbs": "PE", "none": "AC"}
    text = render(actual)
    assert 'verdict = "PE"' in text and 'none = "AC"' in text and "sample" not in text
    expected = load_expected(write(tmp_path, text), CASE_IDS)
    assert {c: expected.verdict(c) for c in CASE_IDS} == actual


def test_every_example_declares_its_verdicts_and_is_still_a_clean_submission():
    """The example class is fully declared, and expected.toml is no stray file to the
    grader's discovery: every correct example is still gradable."""
    config = load_config()
    ids = [
        c["id"]
        for c in __import__("json").loads((ROOT / "testcases" / "manifest.json").read_text())[
            "cases"
        ]
    ]
    for sub in discover(EXAMPLES, config):
        expected = load_expected(sub.folder, ids)
        assert expected is not None, f"{sub.id} has no {FILE_NAME}"
        if sub.id != "compile-error":
            assert sub.problem is None, (sub.id, sub.problem)
    assert load(EXAMPLES / "guido-py", config).source.name == "puzzlesolver.py"


# ------------------------------------------------------------------ verify-examples


@pytest.fixture
def small_class(tmp_path):
    manifest = make_cases(
        tmp_path / "cases",
        {
            "sample": SAMPLE_TEXT,
            "lightbulbs": LIGHTBULBS_TEXT,
            "none": NO_SOLUTION,
            "one": (PUBLIC / "one-solution.txt").read_text(),
        },
    )
    examples = tmp_path / "examples"
    good = examples / "good"
    good.mkdir(parents=True)
    shutil.copy(REFERENCE, good / "puzzlesolver.py")
    plural = examples / "plural"  # "1 unique solutions": WA on one-solution puzzles only
    plural.mkdir()
    source = REFERENCE.read_text()
    singular = 'return "1 unique solution found:"'
    assert singular in source
    (plural / "puzzlesolver.py").write_text(
        source.replace(singular, 'return "1 unique solutions found:"')
    )
    return manifest, examples


def test_verify_examples_passes_then_names_the_example_and_case_that_changed(small_class, capsys):
    manifest, examples = small_class
    write(examples / "good", 'verdict = "AC"\n')
    args = ["--manifest", str(manifest), "verify-examples", str(examples), "--jobs", "2"]
    # "plural" declares nothing yet: --record measures and writes its verdicts
    assert testcases_cli.main(args + ["--record"]) == 0
    recorded = (examples / "plural" / FILE_NAME).read_text()
    assert 'verdict = "AC"' in recorded and 'one = "WA"' in recorded
    capsys.readouterr()
    assert testcases_cli.main(args) == 0
    out = capsys.readouterr()
    assert "ok: 2 example(s) get exactly their declared verdicts" in out.out
    # The declaration no longer matches what the grader gives: caught, named.
    write(examples / "good", 'verdict = "AC"\n[cases]\nlightbulbs = "PE"\n')
    assert testcases_cli.main(args) == 1
    err = capsys.readouterr().err
    assert "example 'good', case 'lightbulbs': expected PE, got AC" in err
    assert "FAILED: 1 verdict(s) differ" in err


def test_a_changed_expected_output_is_caught(small_class, capsys):
    """What students would get changes (here the expected output of one case): every
    example that passed it now fails it, and verify-examples says so."""
    manifest, examples = small_class
    write(examples / "good", 'verdict = "AC"\n')
    write(examples / "plural", 'verdict = "AC"\n')
    expected = manifest.parent / "public" / "sample.out"
    expected.write_bytes(
        expected.read_bytes().replace(b"2 unique solutions", b"2 unique  solutions")
    )
    code = testcases_cli.main(["--manifest", str(manifest), "verify-examples", str(examples)])
    err = capsys.readouterr().err
    assert code == 1
    assert "example 'good', case 'sample': expected AC, got PE" in err
    assert "example 'plural', case 'sample': expected AC, got PE" in err


def test_a_bad_declaration_stops_before_grading(small_class, capsys):
    manifest, examples = small_class
    write(examples / "good", 'verdict = "AC"\n[cases]\nnope = "WA"\n')
    code = testcases_cli.main(["--manifest", str(manifest), "verify-examples", str(examples)])
    err = capsys.readouterr().err
    assert code == 2 and "names 'nope', which is no case in the manifest" in err
    assert "grading" not in err


@pytest.mark.slow
@pytest.mark.parametrize("sandbox", ["bubblewrap", "rlimits"])
def test_the_example_class_gets_exactly_its_declared_verdicts(
    tmp_path, capsys, monkeypatch, sandbox
):
    """The shipped class, graded for real (every language, the real sandbox): under
    bubblewrap, as grading runs it, and under the fallback as it runs in Gradescope's
    container (no cgroup: reaper.c counts and holds the tree), the declared verdicts.
    A 1 s CPU limit keeps the endless loop short; the slowest correct example needs
    about 0.3 s (testcases timelimit)."""
    if sandbox == "rlimits":
        monkeypatch.setenv(CGROUPS_ENV, "off")
    course = tmp_path / "course.toml"
    course.write_text(
        f'sandbox = "{sandbox}"\n[limits]\ncpu_seconds = 1\nwall_seconds = 4\n'
        "[counterexamples]\nruns = 0\n"  # verdicts only: the search has tests of its own
    )
    code = testcases_cli.main(["verify-examples", "--course", str(course), "--jobs", "2"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "get exactly their declared verdicts" in out and "not checked" not in err
