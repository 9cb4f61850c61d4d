"""Gradescope: an autograder zip, and the results.json it writes for one submission.

Gradescope's autograder specification
(https://gradescope-autograders.readthedocs.io/en/latest/specs/): the zip holds
`setup.sh` and `run_autograder` at its root; Gradescope unpacks it into
/autograder/source, runs setup.sh once (as root, on Ubuntu) to build the image,
copies run_autograder to /autograder/run_autograder and runs it from /autograder
for each submission, which it puts in /autograder/submission. run_autograder must
write /autograder/results/results.json; its own output goes to
/autograder/results/stdout, shown to instructors only.

The zip holds the grader package, course.toml, every case, public and hidden, and the
pool of public puzzles beside them (never the reference solver: grading needs only the
expected outputs).
"""

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader import __version__, languages
from grader.cases.manifest import Case
from grader.core.model import NOT_GRADED, Verdict
from grader.core.text import cut, printable
from grader.course.config import CourseConfig, default_course_file, load_config
from grader.exports.common import (
    Entry,
    case_entries,
    language_name,
    package_entries,
    pool_entries,
    requirements_txt,
    verdict_name,
    write_zip,
)
from grader.grading.draws import load_draw
from grader.grading.timed_runs import timed_cases
from grader.judge.score import SubmissionReport
from grader.judge.student_view import ShownCase, student_view
from grader.lms.gradescope.timed import statistic
from grader.results.terminal import counterexample_lines

TEST_OUTPUT_LIMIT = 8000  # characters of one test's output (Gradescope shows it in a <pre>)
BUILD_LOG_LIMIT = 6000
COUNTEREXAMPLE_LINES = 25  # of each text of a public puzzle that fails the same way
LEADERBOARD_NAME = "CPU time (s)"

SETUP_SH = r"""#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image
# (Ubuntu 22.04 or newer: the grader needs Python 3.10+). It installs the
# compilers and a JDK for the students' programs, bubblewrap to isolate them,
# and a virtual environment with the grader's few Python packages.
# AUTOGRADER_ROOT moves /autograder (for trying this out elsewhere).
set -euo pipefail
root="${AUTOGRADER_ROOT:-/autograder}"
source_dir="$root/source"
venv="$source_dir/.venv"

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
    ca-certificates python3 python3-venv TOOLCHAINS util-linux
# Best effort: where bubblewrap cannot be installed, or cannot create namespaces in
# the container, the grader runs programs under rlimits only and says so in its output.
apt-get install -y -qq --no-install-recommends bubblewrap \
    || echo "setup.sh: note: bubblewrap not installed; programs will run under rlimits only"

if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    echo "setup.sh: the grader needs Python 3.10 or newer; this image has" \
         "$(python3 --version 2>&1). Choose an Ubuntu 22.04 or newer base image." >&2
    exit 1
fi
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    -r "$source_dir/requirements.txt"

# Fail here, when the image is built, rather than on the first submission.
cd "$source_dir"
PYTHONPATH="$source_dir" "$venv/bin/python" -m grader.lms.gradescope.runner \
    --source "$source_dir" --check
"""


def setup_sh() -> str:
    """setup.sh, installing every language's toolchain (grader.languages)."""
    packages = dict.fromkeys(p for lang in languages.REGISTRY for p in lang.packages)
    return SETUP_SH.replace("TOOLCHAINS", " ".join(packages))


RUN_AUTOGRADER = r"""#!/usr/bin/env bash
# Gradescope runs this for every submission, as /autograder/run_autograder, from
# /autograder: grade /autograder/submission on every case, public and hidden, and
# write /autograder/results/results.json. What it prints reaches instructors only.
# AUTOGRADER_ROOT moves /autograder and AUTOGRADER_PYTHON picks the interpreter
# (default: the virtual environment setup.sh made), for trying this out elsewhere.
set -euo pipefail
root="${AUTOGRADER_ROOT:-/autograder}"
source_dir="$root/source"
python="${AUTOGRADER_PYTHON:-$source_dir/.venv/bin/python}"
# From source/, `python -m` imports the zip's grader before any other.
cd "$source_dir"
export PYTHONPATH="$source_dir"
exec "$python" -m grader.lms.gradescope.runner --source "$source_dir" \
    --submission "$root/submission" --results "$root/results"@OPTIONS@
"""

README = """# Scramble Squares autograder for Gradescope

Made by `python -m grader export gradescope`. Upload this zip as the assignment's
autograder (Ubuntu 22.04 or newer base image). Each submission is graded on every
case in testcases/ (public and hidden); public cases are visible to students at
once, hidden ones after grades are published. Enable the leaderboard in the
assignment's settings to rank correct programs by the CPU time of the timed cases.

Isolation: @ISOLATION@ Every results.json says which mode graded
(extra_data.isolation), and so does the output instructors see.

Try it without Gradescope: unpack into DIR/source, copy DIR/source/run_autograder
to DIR, put a submission in DIR/submission, then
`AUTOGRADER_ROOT=DIR AUTOGRADER_PYTHON=python3 DIR/run_autograder` (that python
needs the packages in requirements.txt) and read DIR/results/results.json.
"""


# How the zip isolates programs in Gradescope's container, by the export's choice.
CONTAINER_RULE = (
    "bubblewrap where the container lets it make namespaces; where it does not "
    "(Docker's default seccomp profile refuses them, and Gradescope runs Docker), the "
    "unisolated fallback: each program under rlimits as an unprivileged uid, shut out "
    "of everything of the autograder's (hidden cases, expected outputs, the store)."
)
BUBBLEWRAP_REQUIRED = (
    "bubblewrap only (exported with --require-bubblewrap): where the container refuses "
    "namespaces, no submission is graded and each results.json says why."
)
FALLBACK_NOT_ISOLATED = (
    "the program can read any file any user may read (the system's, the submission's "
    "own), use the network, and see other processes; only the autograder's own files "
    "are shut off from it"
)


@dataclass(frozen=True)
class Isolation:
    """How one submission's programs were isolated (results.json's extra_data)."""

    mode: str  # the sandbox's name: bubblewrap or rlimits
    why: str  # why this mode: the export's choice, or why bubblewrap could not run
    not_isolated: str  # what this mode does not isolate ("" for bubblewrap)
    cpu_accounting: str  # a CpuAccounting value

    def as_json(self) -> dict[str, str]:
        return {
            "mode": self.mode,
            "why": self.why,
            "not_isolated": self.not_isolated,
            "cpu_accounting": self.cpu_accounting,
        }

    def said(self) -> str:
        """One paragraph for the output instructors see."""
        text = f"Isolation: {self.mode} ({self.why})."
        return text + (f" Not isolated: {self.not_isolated}." if self.not_isolated else "")


@dataclass(frozen=True)
class AutograderZip:
    path: Path
    public: int
    hidden: int
    drawn: int = 0  # puzzles drawn for Gradescope's leaderboard (0: no leaderboard)


DRAW_IN_ZIP = "leaderboard/draw.json"  # the draw Gradescope's leaderboard times


def build_autograder(
    out: Path,
    manifest: Path | None = None,
    course: Path | None = None,
    *,
    require_bubblewrap: bool = False,
    draw: Path | None = None,
) -> AutograderZip:
    """Write the Gradescope autograder zip for these cases and this course;
    ``require_bubblewrap``: refuse to grade where the container refuses namespaces
    (by default the zip falls back, shut out of the autograder's files); ``draw``: the
    puzzles Gradescope's leaderboard times (none: no leaderboard)."""
    cases, case_files = case_entries(manifest, keep=lambda case: True)
    case_files += pool_entries(manifest)
    course_file = Path(course) if course else default_course_file()
    config = load_config(course)  # a broken configuration fails here, not on Gradescope
    drawn = 0
    if draw is not None:  # a draw that does not fit the course fails here too
        with tempfile.TemporaryDirectory(prefix="draw-") as tmp:
            drawn = len(load_draw(draw, Path(tmp), timed_cases(cases, config)).puzzles)
        case_files.append(Entry(DRAW_IN_ZIP, Path(draw)))
    options = " \\\n    --require-bubblewrap" if require_bubblewrap else ""
    entries: list[Entry] = [
        Entry("setup.sh", setup_sh(), executable=True),
        Entry("run_autograder", RUN_AUTOGRADER.replace("@OPTIONS@", options), executable=True),
        Entry("requirements.txt", requirements_txt()),
        Entry(
            "README.md",
            README.replace(
                "@ISOLATION@", BUBBLEWRAP_REQUIRED if require_bubblewrap else CONTAINER_RULE
            ),
        ),
        *package_entries(),
        *case_files,
    ]
    if course_file.exists():
        entries.append(Entry("course.toml", course_file))
    write_zip(out, entries)
    public = sum(case.public for case in cases)
    return AutograderZip(Path(out), public, len(cases) - public, drawn)


# ------------------------------------------------------------------ results.json


def leaderboard_puzzles(
    source: Path, config: CourseConfig, cases: Sequence[Case], folder: Path
) -> list[Case]:
    """The puzzles Gradescope's leaderboard times: the draw the export put in the zip
    (none: no leaderboard, and grading goes on)."""
    draw = source / DRAW_IN_ZIP
    if not draw.is_file():
        return []
    return list(load_draw(draw, folder, timed_cases(cases, config)).puzzles)


def published(seconds: float) -> float:
    """A leaderboard value as Gradescope shows it, at once, to everyone: two significant
    digits, what the rank test can tell apart at best (its noise floor is 3 %); more
    would say more about the puzzles than about the program."""
    return float(f"{seconds:.2g}")


def gradescope_results(
    result: SubmissionReport,
    *,
    isolation: Isolation,
    execution_time: float,
    leaderboard_cpu: Sequence[float] | None = None,
) -> dict[str, Any]:
    """Gradescope's results.json for one graded submission: one test per case. The
    leaderboard value, for a program that passes every case: the statistic of `grader
    leaderboard` (timed.py) over ``leaderboard_cpu``, the totals of its timed
    runs on the drawn puzzles, rounded (`published`); none without them."""
    document: dict[str, Any] = {
        "execution_time": round(execution_time),
        "output": submission_output(result),
        "output_format": "text",
        "test_output_format": "text",
        "test_name_format": "text",
        "stdout_visibility": "hidden",
        "extra_data": {
            "grader_version": __version__,
            "language": result.submission.language,
            "content_hash": result.submission.content_hash,
            "sandbox": isolation.mode,
            "isolation": isolation.as_json(),
            "verdicts": dict(sorted(result.verdict_counts.items())),
        },
        "tests": [
            _test(number, shown, result.policy_cases)
            for number, shown in enumerate(student_view(result), 1)
        ],
    }
    if leaderboard_cpu and result.all_accepted:
        value = published(statistic(leaderboard_cpu))
        document["extra_data"]["leaderboard_cpu_runs_s"] = [round(t, 4) for t in leaderboard_cpu]
        document["leaderboard"] = [{"name": LEADERBOARD_NAME, "value": value, "order": "asc"}]
    return document


def _test(number: int, shown: ShownCase, policy_cases: str = "count") -> dict[str, object]:
    """One case as Gradescope shows it to the student: what grader.judge.student_view lets
    them see (a hidden case's output shows its verdict and a public puzzle that failed
    alike, never its diagnosis nor its figures); the figures of every run are in
    extra_data, which Gradescope keeps for the instructor."""
    outcome = shown.outcome
    case, run = outcome.case, outcome.run
    passed = outcome.verdict == Verdict.AC
    forgiven = policy_cases == "forgive" and outcome.policy_failure
    apart = policy_cases == "apart" and outcome.policy_dependent
    extra = {
        "verdict": outcome.verdict or NOT_GRADED,
        "case_version": case.version,
        "policy_dependent": outcome.policy_dependent,
        "policy_failure": outcome.policy_failure,
    }
    if run is not None and run.cpu_seconds is not None:
        extra.update(
            cpu_seconds=run.cpu_seconds,
            wall_seconds=run.wall_seconds,
            peak_memory_kb=run.peak_memory_kb,
        )
    name, output = case.id, case_output(shown)
    if forgiven:
        name += " (policy-dependent: forgiven)"
        output = (
            "Forgiven: this case differs only in what a policy rule decides, which "
            "the course does not count.\n\n" + output
        )
    elif apart:
        name += " (policy-dependent: not in the score)"
    elif outcome.policy_failure:
        name += " (policy-dependent)"
    weight = 0.0 if apart else case.weight
    return {
        "name": name,
        "number": str(number),
        "score": weight if passed or forgiven else 0.0,
        "max_score": weight,
        "status": "passed" if passed or forgiven else "failed",
        "output": output,
        "tags": [case.visibility, *case.tags, *(["policy-dependent"] if case.policy else [])],
        # Hidden cases stay hidden until the instructor publishes the grades.
        "visibility": "visible" if case.public else "after_published",
        "extra_data": extra,
    }


def case_output(shown: ShownCase) -> str:
    """The verdict in words; where the student may see the run, its figures and the
    diagnosis; for a failure, a public puzzle that failed alike. Capped."""
    judged = shown.outcome.run
    if judged is None:
        return "not graded: the grader has no result for this case"
    head = f"{judged.verdict}: {verdict_name(judged.verdict)}"
    run = shown.run
    if run is not None and run.cpu_seconds is not None:
        head += (
            f"\n{run.cpu_seconds:.3f} s CPU, {run.wall_seconds:.3f} s wall, "
            f"{(run.peak_memory_kb or 0) / 1024:.0f} MB"
        )
    diagnosis = printable(run.diagnosis).strip() if run and run.verdict != Verdict.AC else ""
    text = head + (f"\n\n{diagnosis}" if diagnosis else "")
    text += "\n\n" + "\n".join(shown.apart) if shown.apart else ""
    if shown.withheld:
        text += f"\n\n{shown.withheld}"
    if judged.verdict not in (Verdict.AC, Verdict.CE):
        text += "\n\n" + "\n".join(counterexample_lines(shown.outcome, COUNTEREXAMPLE_LINES))
    return cut(text, TEST_OUTPUT_LIMIT)


def submission_output(result: SubmissionReport) -> str:
    """What the whole submission's box says: build and public results only (a hidden
    case's result must not show before the grades are published)."""
    sub = result.submission
    lines = [f"Language: {language_name(sub.language)}"]
    if sub.problem:
        lines.append(f"Not graded: {sub.problem}")
    elif result.build is not None and not result.build.ok:
        lines.append("Build failed:")
        lines.append(cut(printable(result.build.log).rstrip(), BUILD_LOG_LIMIT))
    else:
        lines.append("Build: ok")
    public = [o for o in result.outcomes if o.case.public]
    passed = sum(o.verdict == Verdict.AC for o in public)
    lines.append(f"Public cases: {passed} of {len(public)} passed.")
    if result.policy_note and all(o.case.public for o in result.outcomes if o.policy_dependent):
        lines.append(f"Policy-dependent cases: {result.policy_note}.")
    if len(public) < len(result.outcomes):
        lines.append("Hidden cases are graded now and shown when grades are published.")
    return "\n".join(lines)
