"""`grader export github-classroom DIR`: a template repository's workflow, run in
student repositories as GitHub runs it. The workflow is read by the rules GitHub's
Actions and Classroom's actions apply (classroom-resources/autograding-command-grader
and autograding-grading-reporter, v1): each grader step's command runs through /bin/sh
with PATH and HOME only, in the repository's top folder, within `timeout` minutes, and
is worth parseInt(max-score) when it exits 0; the reporter reads each step of its
`runners` list from the variable `<ID upper-cased>_RESULTS`."""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from grader.exports.common import ExportError
from grader.lms.github_classroom.template import point_scale, step_ids
from tests.helpers import ROOT
from tests.helpers import grader_cli as cli
from tests.mistake_variants import case_subset, variant

PUBLIC = ("sample", "one-solution", "many-solutions")
HIDDEN = "crlf"  # a hidden case of the shipped set, beside them in the manifest
COMMAND_GRADER = "classroom-resources/autograding-command-grader@v1"
REPORTER = "classroom-resources/autograding-grading-reporter@v1"
STEP_ID = re.compile(r"^[_a-zA-Z][a-zA-Z0-9_-]*$")  # GitHub's rule for a step's id
SETTLE = "(only settled grades are reported)"  # the plain step before the reporter


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("classroom")
    manifest = case_subset(root / "cases", (*PUBLIC, HIDDEN), pool=("no-solution-1",))
    done = cli("--manifest", manifest, "export", "github-classroom", root / "template")
    assert done.code == 0, done.err
    assert "3 public cases, 3 points" in done.out and "add no autograding test" in done.out
    return root / "template"


def workflow(repo: Path) -> dict:
    return yaml.safe_load((repo / ".github" / "workflows" / "classroom.yml").read_text())


def student_repo(template: Path, into: Path, program: Path | None) -> Path:
    """A student's repository as Classroom makes it: the template's files, the
    student's program pushed at its top."""
    shutil.copytree(template, into)
    if program is not None:
        for source in program.iterdir():
            shutil.copy(source, into / source.name)
    return into


def graded_steps(repo: Path, home: Path) -> dict[str, tuple[int, int, str]]:
    """Each grader step run as GitHub's command grader runs it: {step id: (points,
    max-score, log)}; a plain `run` step as Actions runs it (bash, failing the job when
    it exits non-zero): {SETTLE: (its exit status, 0, log)}."""
    job = workflow(repo)["jobs"]["run-autograding-tests"]
    results = {}
    for step in job["steps"]:
        if "run" in step:
            done = subprocess.run(
                ["bash", "-e", "-c", step["run"]], cwd=repo, capture_output=True, text=True
            )
            results[SETTLE] = (done.returncode, 0, done.stdout + done.stderr)
            continue
        if step.get("uses") != COMMAND_GRADER:
            continue
        given = step["with"]
        assert given["setup-command"] == ""
        done = subprocess.run(
            ["/bin/sh", "-c", given["command"]],
            cwd=repo,
            env={"PATH": os.environ["PATH"], "HOME": str(home), "FORCE_COLOR": "true"},
            capture_output=True,
            text=True,
            timeout=float(given["timeout"]) * 60,
        )
        best = int(given["max-score"])
        points = best if done.returncode == 0 else 0
        results[step["id"]] = (points, best, done.stdout + done.stderr)
    return results


def reported(repo: Path, steps: dict) -> tuple[int, int] | None:
    """The points GitHub's reporter sends Classroom: every runner's variable found;
    None when a step before it failed the job (the reporter, `if: success()` by default,
    does not run: Classroom records no points)."""
    reporter = workflow(repo)["jobs"]["run-autograding-tests"]["steps"][-1]
    assert reporter["uses"] == REPORTER
    runners = [runner.strip() for runner in reporter["with"]["runners"].split(",")]
    assert "if" not in reporter and sorted(runners) == sorted(set(steps) - {SETTLE})
    if steps[SETTLE][0] != 0:
        return None
    for runner in runners:
        assert reporter["env"][f"{runner.upper()}_RESULTS"] == (
            f"${{{{steps.{runner}.outputs.result}}}}"
        )
    return sum(steps[r][0] for r in runners), sum(steps[r][1] for r in runners)


def test_the_workflow_has_the_form_github_classroom_generates(template):
    document = workflow(template)
    assert set(document) == {"name", "on", "permissions", "jobs"}
    assert {"push", "repository_dispatch"} <= set(document["on"])
    assert document["permissions"] == {"checks": "write", "actions": "read", "contents": "read"}
    (job_id,) = document["jobs"]
    job = document["jobs"][job_id]
    assert job_id == "run-autograding-tests" and job["runs-on"] == "ubuntu-latest"
    assert job["if"] == "github.actor != 'github-classroom[bot]'"
    first, *graders, settle, last = job["steps"]
    assert first["uses"] == "actions/checkout@v4" and last["uses"] == REPORTER
    assert ".scramble-kit/unsettled.txt" in settle["run"] and "exit 1" in settle["run"]
    assert [step["with"]["test-name"] for step in graders] == list(PUBLIC)
    for step in graders:
        assert step["uses"] == COMMAND_GRADER and STEP_ID.match(step["id"])
        assert set(step["with"]) == {
            "test-name",
            "setup-command",
            "command",
            "timeout",
            "max-score",
        }
        assert isinstance(step["with"]["timeout"], int) and 1 <= step["with"]["timeout"] <= 360
    # Nothing fetched: the commands run the kit the template holds.
    assert all(".scramble-kit/check.py --case" in s["with"]["command"] for s in graders)


def test_no_hidden_case_goes_into_the_template(template):
    secret = (ROOT / "testcases" / "hidden").glob(f"{HIDDEN}.*")
    texts = [path.read_bytes() for path in secret]
    assert texts
    for path in template.rglob("*"):
        if path.is_file():
            assert not any(text.strip() in path.read_bytes() for text in texts), path
    manifest = json.loads((template / ".scramble-kit" / "testcases" / "manifest.json").read_text())
    assert [case["id"] for case in manifest["cases"]] == list(PUBLIC)
    assert HIDDEN not in (template / ".github" / "workflows" / "classroom.yml").read_text()
    assert not list(template.rglob("hidden"))


@pytest.mark.slow
def test_run_as_github_runs_it_correct_gets_all_plural_fewer_empty_none(template, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    programs = {
        "correct": ROOT / "submissions" / "ada-c",
        "plural": variant("plural", "c", tmp_path / "programs"),
        "empty": None,
    }
    totals, logs = {}, {}
    for name, program in programs.items():
        repo = student_repo(template, tmp_path / name, program)
        steps = graded_steps(repo, home)
        totals[name] = reported(repo, steps)
        logs[name] = {step: log for step, (_, _, log) in steps.items()}
    assert totals == {"correct": (3, 3), "plural": (2, 3), "empty": (0, 3)}
    # The log of the failed step: its verdict and the grader's cause.
    assert "one-solution: WA" in logs["plural"]["one-solution"]
    assert "wrong plural on line 12" in logs["plural"]["one-solution"]
    assert "the folder is empty" in logs["empty"]["sample"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "run, said",
    [
        (["python3-not-installed", "puzzlesolver.py", "{input}"], "needs python3-not-installed"),
        (["python3", "--no-such-flag", "puzzlesolver.py", "{input}"], "no score"),
    ],
)
def test_a_case_the_grader_cannot_judge_reports_no_points_never_a_zero(
    template, tmp_path, run, said
):
    """The runner lacks the interpreter, or its Python cannot start (the kit's course
    runs it so): not the student's failure, so the job fails before the reporter, and
    Classroom records no points for the push instead of 0."""
    repo = student_repo(template, tmp_path / "broken", ROOT / "submissions" / "guido-py")
    kit_course = repo / ".scramble-kit" / "course.json"
    course = json.loads(kit_course.read_text())
    course["languages"] = {"python": {"run": run}}
    kit_course.write_text(json.dumps(course))
    home = tmp_path / "home"
    home.mkdir()
    steps = graded_steps(repo, home)
    assert reported(repo, steps) is None
    status, _, log = steps[SETTLE]
    assert status == 1 and "sample: " in log and "no points are reported" in log
    assert said in steps["sample"][2]


def test_an_export_again_replaces_the_kit_and_keeps_other_workflows(template, tmp_path):
    repo = shutil.copytree(template, tmp_path / "again")
    (repo / ".github" / "workflows" / "lint.yml").write_text("name: lint\n")
    (repo / ".scramble-kit" / "stale.py").write_text("")
    manifest = case_subset(tmp_path / "cases", ("sample",), pool=("no-solution-1",))
    done = cli("--manifest", manifest, "export", "github-classroom", repo)
    assert done.code == 0, done.err
    assert "replaced the earlier .github/workflows/classroom.yml" in done.out
    assert (repo / ".github" / "workflows" / "lint.yml").is_file()
    assert not (repo / ".scramble-kit" / "stale.py").exists()
    assert [s.get("id") for s in workflow(repo)["jobs"]["run-autograding-tests"]["steps"]] == [
        None, "sample", None, None,
    ]  # fmt: skip


def test_a_file_in_place_of_the_folder_is_a_clear_error(tmp_path):
    (tmp_path / "template").write_text("")
    done = cli("export", "github-classroom", tmp_path / "template")
    assert done.code != 0 and "is a file" in done.err


def test_step_ids_are_classrooms_slugs_unique_and_start_with_a_letter():
    assert step_ids(["one-solution", "2-letters", "a", "a"]) == [
        "one-solution", "case-2-letters", "a", "a-2",
    ]  # fmt: skip


def test_points_keep_the_weights_ratios_in_whole_numbers():
    assert point_scale([1, 2, 1]) == 1
    assert point_scale([0.5, 1]) == 2
    assert point_scale([0.1, 0.25]) == 20
    with pytest.raises(ExportError, match="whole points"):
        point_scale([1 / 3])
