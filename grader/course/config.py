"""Course configuration: `course.toml` -> dataclasses, with the spec's defaults.

Each key is declared once, by a field of the dataclasses below (and of grader.core.model's
Limits): its type, its default, the comment course.toml shows beside it and the checks
its value must pass (grader.core.settings). Every key is checked: an unknown key, a wrong
type or a value out of range is one ConfigError naming the file and the key, before
anything is graded. The project's course.toml is course_file_text(): every default
with its comment.
"""

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast, get_args

try:
    import tomllib as tomllib  # re-exported: the exports read TOML through this one import
except ModuleNotFoundError:  # Python 3.10
    try:
        import tomli as tomllib
    except ModuleNotFoundError:  # the student kit on Python alone reads its course.json
        tomllib = None

from grader import PACKAGE, languages
from grader.core.errors import GraderError
from grader.core.model import Limits, PolicyCases
from grader.core.settings.declare import (
    NOT_A_KEY,
    BadSetting,
    Setting,
    at_least,
    in_range,
    interval,
    not_empty,
    not_negative,
    one_of,
    positive,
    setting,
)
from grader.core.settings.read import read
from grader.core.settings.show import show
from grader.course import identity
from grader.course.late import LatePolicy
from grader.course.zones import UnknownZone, course_zone
from grader.statistics.rank_tests import DEFAULT as DEFAULT_RANK_TEST
from grader.statistics.rank_tests import REGISTRY as RANK_TESTS
from grader.statistics.timing import Rule


class ConfigError(GraderError):
    """A bad course configuration; str() is one line naming the key."""


SandboxChoice = Literal["auto", "bubblewrap", "rlimits"]
SANDBOX_CHOICES: tuple[SandboxChoice, ...] = get_args(SandboxChoice)
ExtraFiles = Literal["same-language", "none"]
EXTRA_FILE_POLICIES: tuple[ExtraFiles, ...] = get_args(ExtraFiles)

COMMAND_WORDS = "strings (the command's words)"


def _passes_the_puzzle(run: tuple[str, ...]) -> str | None:
    return None if "{input}" in run else "must pass the puzzle as {input}"


@dataclass(frozen=True)
class LanguageSpec:
    name: str = field(metadata=NOT_A_KEY)  # a code of grader.languages' registry
    source: str = field(metadata=NOT_A_KEY)  # the file name a submission must use
    build: tuple[str, ...] = field(metadata=setting(items=COMMAND_WORDS))  # empty: no build
    run: tuple[str, ...] = field(  # may hold {input} and {heap_mb}
        metadata=setting("", not_empty, _passes_the_puzzle, items=COMMAND_WORDS)
    )
    # False for the JVM: its heap is capped by -Xmx
    memory_rlimit: bool = field(default=True, metadata=NOT_A_KEY)


def _module_names(names: tuple[str, ...]) -> str | None:
    bad = [name for name in names if not name.isidentifier()]
    return f"not a module name (what an import names): {bad[0]!r}" if bad else None


@dataclass(frozen=True)
class PythonSpec(LanguageSpec):
    """Python's: the commands, and the third-party modules the grading machine has."""

    # Not in repr: a submission's content hash holds its language's commands
    # (grader.intake.submissions), and the course's list changes no verdict, only a diagnosis.
    packages: tuple[str, ...] = field(
        default=(),
        repr=False,
        metadata=setting(
            "third-party modules (import names) the grading machine installs; a failing "
            "program importing another is told it is not available for grading",
            _module_names,
            items="module names (what an import names)",
        ),
    )


DEFAULT_LANGUAGES = {
    lang.name: (PythonSpec if lang.third_party else LanguageSpec)(
        lang.name, lang.source, lang.build, lang.run, memory_rlimit=lang.memory_rlimit
    )
    for lang in languages.REGISTRY
}

DEFAULT_BUILD_LIMITS = Limits(
    cpu_seconds=60,
    wall_seconds=120,
    memory_mb=2048,
    processes=128,
    file_size_mb=64,
    open_files=256,
    stdout_bytes=64 << 10,
    stderr_bytes=64 << 10,
)


@dataclass(frozen=True)
class LeaderboardConfig:
    runs: int = field(
        default=7,
        metadata=setting("timed runs per program and case, after the warm-up", at_least(3)),
    )
    warmup: int = field(default=1, metadata=setting("untimed runs first", not_negative))
    cases: tuple[str, ...] = field(
        default=(),
        metadata=setting('empty: every case marked "timed" in the manifest', items="case ids"),
    )
    noise_floor: float = field(
        default=0.03,
        metadata=setting(
            "medians closer than this (3%) are never ranked apart",
            interval(0, 1, closed_low=True),
        ),
    )
    alpha: float = field(
        default=0.05,
        metadata=setting("significance level of the rank test", interval(0, 1, closed_low=False)),
    )
    rank_test: str = field(
        default=DEFAULT_RANK_TEST,
        metadata=setting(
            "tells two programs' runs apart (grader/statistics/rank_tests/)", one_of(RANK_TESTS)
        ),
    )
    bonus: float = field(
        default=15.0,
        metadata=setting(
            "points for every member of every team ranked 1, added in the gradebook exports "
            "(the hand-out's +15); 0: no bonus",
            not_negative,
        ),
    )

    @property
    def rule(self) -> Rule:
        """When one program ranks above another (grader.statistics.timing.Rule)."""
        return Rule(self.noise_floor, self.alpha, RANK_TESTS[self.rank_test])


def _runs_can_tell_apart(
    table: Mapping[str, object], board: LeaderboardConfig
) -> tuple[str, str] | None:
    """Runs so few that the exact rank test can never reach p < alpha would tie every
    program at rank 1: refused, with the fewest that can."""
    if board.rank_test not in RANK_TESTS:
        return None  # its own check says so
    smallest = RANK_TESTS[board.rank_test].smallest_p_value
    if smallest(board.runs, board.runs) < board.alpha:
        return None
    enough = next(n for n in range(board.runs, 100) if smallest(n, n) < board.alpha)
    return (
        "runs" if "runs" in table else "alpha",
        f"with {board.runs} runs per program the rank test can never reach p < "
        f"{board.alpha:g} (its smallest p-value is {smallest(board.runs, board.runs):.3g}):"
        f" every program would tie at rank 1; give at least {enough} runs",
    )


@dataclass(frozen=True)
class TimeLimitConfig:
    """How `testcases timelimit` turns measured runs into a proposed limit."""

    k: float = field(
        default=2.0,
        metadata=setting("CPU limit = k x the slowest accepted run (as Kattis does)", at_least(1)),
    )
    runs: int = field(default=3, metadata=setting("timed runs per program and case", at_least(1)))
    round_to: float = field(
        default=0.5,
        metadata=setting("the CPU limit is rounded up to a multiple of this (s)", positive),
    )
    wall_factor: float = field(
        default=2.0, metadata=setting("wall limit = this x the CPU limit", at_least(1))
    )


@dataclass(frozen=True)
class LmsConfig:
    missing_as_zero: bool = field(
        default=False,
        metadata=setting("no submission: an empty cell in the LMS export (true: a 0)"),
    )
    gradescope_sid: str = field(
        default="SIS User ID",
        metadata=setting(
            "a class imported from Gradescope: the Canvas roster column its students' sid "
            "is (a person is matched by one key: grader.course.identity); empty: none",
            strip=True,
        ),
    )
    gradescope_email: str = field(
        default="SIS Login ID",
        metadata=setting(
            "the Canvas roster column its students' e-mail is (in Moodle's worksheet, "
            '"Email address" is always their e-mail); empty: none',
            strip=True,
        ),
    )
    github_identifier: str = field(
        default="SIS User ID",
        metadata=setting(
            "a class imported from GitHub Classroom: the Canvas roster column its classroom "
            "roster's identifiers are (in Moodle's worksheet: \"Email address\"); empty: none",
            strip=True,
        ),
    )

    @property
    def declared(self) -> dict[str, str]:
        """Each other system's kind of id -> the roster column it is (grader.course.identity)."""
        return {
            identity.GRADESCOPE_SID: self.gradescope_sid,
            identity.GRADESCOPE_EMAIL: self.gradescope_email,
            identity.CLASSROOM_IDENTIFIER: self.github_identifier,
        }


@dataclass(frozen=True)
class TeamsConfig:
    file: str = field(
        default="",
        metadata=setting(
            'a class folder made by hand: a CSV beside this file, e.g. "teams.csv", with '
            "columns team (the submission's folder) and member (any id the roster knows); an "
            "LMS import's own teams (Gradescope, Moodle, Canvas --teams) take precedence",
            strip=True,
        ),
    )


@dataclass(frozen=True)
class ClusterConfig:
    scheduler: str = field(
        default="",
        metadata=setting(
            'e.g. "tcp://lab01:8786", or "local:4"; empty: grade on this machine', strip=True
        ),
    )
    cases_per_task: int = field(
        default=8,
        metadata=setting(
            "runs per task sent to a worker, after the submission's build", at_least(1)
        ),
    )


def _a_known_zone(name: str) -> str | None:
    try:
        course_zone(name)
    except UnknownZone as error:
        return f"{error} (an IANA name such as Europe/Berlin; empty: this machine's zone)"
    return None


# [late]'s keys: LatePolicy (grader.course.late) is the policy, and knows nothing of the file.
LATE_KEYS = {
    "deadline": Setting(
        "TOML date-time; without offset: `timezone`'s", example="2026-03-01T23:59:00-05:00"
    ),
    "grace_minutes": Setting(
        "later than the deadline by this much still counts as on time",
        (in_range(0),),
        example="15",
    ),
    "per_day_percent": Setting(
        "of the raw score, per started day after the deadline", (in_range(0, 100),), example="10"
    ),
    "max_percent": Setting("the penalty's cap", (in_range(0, 100),), example="50"),
    "timezone": Setting(
        "the course's clock, an IANA name (America/New_York): times without an offset (such "
        "a deadline, zip entry times) are read on it, days late are real elapsed time "
        "across daylight-saving changes; empty: this machine's local zone",
        (_a_known_zone,),
        strip=True,
    ),
    "extensions": Setting(
        "a CSV file (relative to course.toml) of each person's own due date, header "
        "person,due: a person by any id the LMS gives them, a due date as `deadline` "
        "(without offset: `timezone`'s); it comes before the due dates the LMS gave "
        "(Canvas's cached_due_date, Moodle's extensions); empty: none",
        strip=True,
        example="extensions.csv",
    ),
}


def _a_penalty_needs_a_deadline(
    table: Mapping[str, object], policy: LatePolicy
) -> tuple[str, str] | None:
    penalty = policy.per_day_percent or "max_percent" in table or policy.grace_minutes
    if policy.deadline is None and penalty:
        return "deadline", "a late penalty needs a deadline"
    return None


@dataclass(frozen=True)
class CounterexamplesConfig:
    """The public puzzles each failing case is shown beside: the probes."""

    runs: int = field(
        default=5,
        metadata=setting(
            "probes: pool puzzles every submission runs after its public cases and "
            "before its hidden ones, the most alike to the hidden cases first (0: none);"
            " they never count in a score",
            not_negative,
        ),
    )


@dataclass(frozen=True)
class CourseConfig:
    sandbox: SandboxChoice = field(
        default="auto",
        metadata=setting("auto | bubblewrap | rlimits (no isolation: see docs/operators/index.md)"),
    )
    limits: Limits = field(
        default=Limits(), metadata=setting("one run of a student program on one case")
    )
    build_limits: Limits = field(
        default=DEFAULT_BUILD_LIMITS, metadata=setting("one compilation (the keys of [limits])")
    )
    languages: dict[str, LanguageSpec] = field(
        default_factory=lambda: dict(DEFAULT_LANGUAGES),
        metadata=setting(
            "Build and run commands per language (defaults from the assignment; build = [] "
            "builds nothing; run passes the puzzle as {input}, and {heap_mb} is the Java "
            "heap):"
        ),
    )
    extra_files: ExtraFiles = field(
        default="same-language",
        metadata=setting(
            "same-language: the folder's other source and header files of the main file's "
            "language are copied beside it (#include and import work; the build command "
            'stays the one above; a word "{sources}" in it becomes the main file and the '
            "extra files it compiles). none: the main file only. `show` and results.json "
            "list the files used and ignored.",
            table="submissions",
        ),
    )
    policy_cases: PolicyCases = field(
        default="count",
        metadata=setting(
            "cases whose expected output depends on the project's policy rules (manifest "
            '"policy"): count = scored like the rest, what they cost shown apart; apart = '
            "left out of the score, scored apart; forgive = a failure the rule decides "
            "counts as passed",
            table="scoring",
        ),
    )
    leaderboard: LeaderboardConfig = field(
        default=LeaderboardConfig(),
        metadata=setting("grader leaderboard: the speed ranking", table_check=_runs_can_tell_apart),
    )
    timelimit: TimeLimitConfig = field(
        default=TimeLimitConfig(),
        metadata=setting("testcases timelimit: limits proposed from measured runs"),
    )
    late: LatePolicy = field(
        default=LatePolicy(),
        metadata=setting(
            "no deadline: no late policy",
            keys=LATE_KEYS,
            table_check=_a_penalty_needs_a_deadline,
        ),
    )
    lms: LmsConfig = field(
        default=LmsConfig(), metadata=setting("grader import / export canvas|moodle")
    )
    cluster: ClusterConfig = field(
        default=ClusterConfig(),
        metadata=setting(
            "grade --cluster (see docs/instructors/cluster.md): a Dask scheduler instead of threads"
        ),
    )
    teams: TeamsConfig = field(
        default=TeamsConfig(),
        metadata=setting("who handed in each submission (grader teams lists them)"),
    )
    counterexamples: CounterexamplesConfig = field(
        default=CounterexamplesConfig(),
        metadata=setting("for each failing case, a public puzzle that fails the same way"),
    )
    source: Path | None = field(default=None, metadata=NOT_A_KEY)  # the file it came from

    @property
    def python_packages(self) -> tuple[str, ...]:
        """[languages.python] packages: the third-party modules the grading machine has."""
        found = (s.packages for s in self.languages.values() if isinstance(s, PythonSpec))
        return next(found, ())

    def language_for(self, filename: str) -> LanguageSpec | None:
        for spec in self.languages.values():
            if spec.source == filename:
                return spec
        return None


COURSE_FILE_HEADER = (
    "Course configuration for the grader. Every key is optional: a missing key takes the "
    "default shown. Unknown keys, wrong types and values out of range are rejected with "
    "an error naming the key."
)


def course_file_text() -> str:
    """What the project's course.toml holds: every default, with its comment."""
    return show(CourseConfig(), COURSE_FILE_HEADER)


def default_course_file() -> Path:
    return PACKAGE.parent / "course.toml"


def _parsed(path: Path) -> dict[str, Any]:
    """The file's tables: TOML, or the same tables as JSON (what the student kit ships,
    for a Python 3.10 without tomli)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("not an object of tables")
        return data
    if tomllib is None:
        raise ConfigError(f"{path}: reading TOML needs Python 3.11, or the tomli package on 3.10")
    return cast(dict[str, Any], tomllib.loads(text))  # untyped: mypy targets 3.10


def load_config(path: Path | None = None) -> CourseConfig:
    """Read course.toml (the project's, or `path`); defaults when it is absent."""
    explicit = path is not None
    path = Path(path) if path is not None else default_course_file()
    if not path.exists():
        if explicit:
            raise ConfigError(f"{path}: no such course configuration file")
        return CourseConfig()
    try:
        data = _parsed(path)
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from None
    except ValueError as error:  # tomllib.TOMLDecodeError and JSON's are ValueErrors
        kind = "JSON" if path.suffix == ".json" else "TOML"
        raise ConfigError(f"{path}: not valid {kind}: {error}") from None
    try:
        config = read(CourseConfig(), data)
    except BadSetting as error:
        raise ConfigError(f"{path}: {error}") from None
    return dataclasses.replace(config, source=path)
