"""The GitHub Classroom template: what a template repository needs for GitHub's runners
to grade every push with the grader's own check, one step per public case.

    DIR/.github/workflows/classroom.yml   the workflow in the form GitHub Classroom
                                          generates: its command grader once per public
                                          case (that case's points), its reporter
                                          listing every step
    DIR/.scramble-kit/                    the student kit (grader.exports.student_kit):
                                          check.py, the grader's check, the public cases

Each step runs `python3 .scramble-kit/check.py --case ID --unsettled-mark FILE .` at the
repository's top, as
GitHub's command grader runs a command (/bin/sh, PATH and HOME only, a timeout in
minutes, exit status 0 = the points): a stock ubuntu-latest runner has Python 3, gcc,
g++ and a JDK, and the step needs nothing from the network. The Actions log shows the
case's verdict and cause exactly as `check` prints them. Hidden cases never go in.

A grade leaves only when settled: GitHub's command grader knows only pass (exit 0) and
fail, so a step whose case the grader itself could not judge (IE: a toolchain that
cannot start, say) also writes the case into UNSETTLED_MARK, and a step before the
reporter fails the job when that file is not empty. The reporter then never runs, and
Classroom records no points for the push (as for a run that did not finish), instead
of 0 for a case the student's program never got to run.

The YAML is written by hand, not by a dumper: every scalar is a JSON string (a YAML
double-quoted scalar), so no case name can change the document's structure.
"""

import json
import math
import re
import shlex
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from grader.cases.manifest import Case, default_manifest, load_cases
from grader.course.config import CourseConfig, load_config
from grader.exports.common import Entry, ExportError, write_folder
from grader.exports.student_kit import README, kit_entries, refuse_secrets

WORKFLOW = ".github/workflows/classroom.yml"
KIT_FOLDER = ".scramble-kit"  # hidden: the grader's discovery never takes it for a submission
UNSETTLED_MARK = f"{KIT_FOLDER}/unsettled.txt"  # the cases the grader could not judge
JOB = "run-autograding-tests"  # the name GitHub Classroom's own workflows give the job
COMMAND_GRADER = "classroom-resources/autograding-command-grader@v1"
REPORTER = "classroom-resources/autograding-grading-reporter@v1"
STARTUP_SECONDS = 60  # a step's own start (checkout done, Python, the kit's imports)
# Classroom's own pushes (setting the repository up) are not graded.
NOT_CLASSROOM_BOT = "github.actor != 'github-classroom[bot]'"
POINT_SCALES = (1, 2, 4, 5, 10, 20, 25, 50, 100)  # max-score is an integer (parseInt)

KIT_README = (
    f"""# Self-check, in this repository

From the repository's top: `python3 {KIT_FOLDER}/check.py .` (on Windows `py
{KIT_FOLDER}\\check.py .`). It runs every public case and the pool of public puzzles.
Every push runs the same check in GitHub Actions, one step per public case (the
repository's Actions tab, job `{JOB}`), and each step's log shows that case's verdict
and cause. Keep your source file at the repository's top, and do not change this
folder or `{WORKFLOW}`: the course's grading uses its own copy.

"""
    + README
)


@dataclass(frozen=True)
class GradingStep:
    """One command-grader step: one public case."""

    id: str  # the step id, and (upper-cased) the reporter's <ID>_RESULTS variable
    case: str
    points: int
    timeout_minutes: int

    @property
    def command(self) -> str:
        return (
            f"python3 {KIT_FOLDER}/check.py --case {shlex.quote(self.case)} "
            f"--unsettled-mark {UNSETTLED_MARK} ."
        )


@dataclass(frozen=True)
class Template:
    folder: Path
    steps: list[GradingStep]
    scale: int  # points per unit of case weight
    replaced: list[str]  # what an earlier export or GitHub Classroom had put there


def write_template(out: Path, manifest: Path | None = None, course: Path | None = None) -> Template:
    """Write the workflow and the kit into `out` (made when missing), replacing an older
    workflow and kit, nothing else."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ExportError(f"{out}: is a file; name the template repository's folder")
    manifest = Path(manifest or default_manifest())
    config = load_config(course)
    public = load_cases(manifest, public_only=True)
    scale, steps = grading_steps(public, config)
    _, kit = kit_entries("", manifest, course, readme=KIT_README)
    kit.append(Entry(".gitignore", "__pycache__/\n"))  # a student's own check writes them
    workflow = Entry(WORKFLOW, workflow_text(steps))
    refuse_secrets([*kit, workflow], manifest)
    replaced = [name for name in (WORKFLOW, KIT_FOLDER) if (out / name).exists()]
    write_folder(out / KIT_FOLDER, kit)
    write_folder(out / ".github" / "workflows", [Entry("classroom.yml", workflow.content)],
                 keep_others=True)  # fmt: skip
    return Template(out, steps, scale, replaced)


def grading_steps(public: list[Case], config: CourseConfig) -> tuple[int, list[GradingStep]]:
    """A step per public case, in the manifest's order, and the points per unit of weight."""
    if not public:
        raise ExportError("no public case: a template's workflow would grade nothing")
    scale = point_scale([case.weight for case in public])
    limits = config.build_limits.wall_seconds + config.limits.wall_seconds + STARTUP_SECONDS
    timeout = max(1, math.ceil(limits / 60))
    ids = step_ids([case.id for case in public])
    return scale, [
        GradingStep(step_id, case.id, int(_exact(case.weight) * scale), timeout)
        for step_id, case in zip(ids, public, strict=True)
    ]


def point_scale(weights: list[float]) -> int:
    """The smallest factor that makes every weight a whole number of points (GitHub's
    grader reads max-score as an integer), so that the points keep the weights' ratios."""
    for scale in POINT_SCALES:
        if all((_exact(weight) * scale).denominator == 1 for weight in weights):
            return scale
    raise ExportError(
        "the public cases' weights are not whole numbers even times 100: GitHub's grader "
        f"counts whole points only ({', '.join(map(str, weights))})"
    )


def _exact(weight: float) -> Fraction:
    return Fraction(weight).limit_denominator(10**6)  # 0.1 is 1/10, not its binary value


def step_ids(case_ids: list[str]) -> list[str]:
    """A step id per case, as GitHub Classroom makes them (lower case, '-' for the rest),
    starting with a letter and unique."""
    ids: list[str] = []
    for case_id in case_ids:
        slug = re.sub(r"[^a-z0-9]+", "-", case_id.lower()).strip("-") or "case"
        if not slug[0].isalpha():
            slug = f"case-{slug}"
        unique, n = slug, 2
        while unique in ids:
            unique, n = f"{slug}-{n}", n + 1
        ids.append(unique)
    return ids


def workflow_text(steps: list[GradingStep]) -> str:
    """The workflow GitHub Classroom would generate for these steps."""
    q = json.dumps
    lines = [
        f"name: {q('Autograding Tests')}",
        f"{q('on')}:",
        *(f"- {q(event)}" for event in ("push", "workflow_dispatch", "repository_dispatch")),
        "permissions:",
        *(
            f"  {name}: {q(level)}"
            for name, level in (("checks", "write"), ("actions", "read"), ("contents", "read"))
        ),  # fmt: skip
        "jobs:",
        f"  {JOB}:",
        f"    runs-on: {q('ubuntu-latest')}",
        f"    if: {q(NOT_CLASSROOM_BOT)}",
        "    steps:",
        f"    - name: {q('Checkout code')}",
        f"      uses: {q('actions/checkout@v4')}",
    ]
    for step in steps:
        lines += [
            f"    - name: {q(step.case)}",
            f"      id: {q(step.id)}",
            f"      uses: {q(COMMAND_GRADER)}",
            "      with:",
            f"        test-name: {q(step.case)}",
            f"        setup-command: {q('')}",
            f"        command: {q(step.command)}",
            f"        timeout: {step.timeout_minutes}",
            f"        max-score: {step.points}",  # a weight is > 0 (the manifest's schema)
        ]
    settle = (
        f"if [ -s {UNSETTLED_MARK} ]; then cat {UNSETTLED_MARK}; echo 'the grader could "
        "not judge these cases (not the program): no points are reported for this push; "
        "push again or ask the course staff'; exit 1; fi"
    )
    lines += [
        f"    - name: {q('Only settled grades are reported')}",
        f"      run: {q(settle)}",
        f"    - name: {q('Autograding Reporter')}",
        f"      uses: {q(REPORTER)}",
        "      env:",
        *(
            f"        {q(results_variable(step.id))}: {q(results_expression(step.id))}"
            for step in steps
        ),  # fmt: skip
        "      with:",
        f"        runners: {q(','.join(step.id for step in steps))}",
    ]
    return "\n".join(lines) + "\n"


def results_variable(step_id: str) -> str:
    """The variable GitHub's reporter reads a step's result from (its id upper-cased, as
    it is: dashes stay)."""
    return f"{step_id.upper()}_RESULTS"


def results_expression(step_id: str) -> str:
    return f"${{{{steps.{step_id}.outputs.result}}}}"
