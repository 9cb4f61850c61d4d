"""Course configuration: `course.toml` -> dataclasses, with the spec's defaults.

Every key is checked: an unknown key, a wrong type or a negative limit is one
ConfigError naming the file and the key, before anything is graded.
"""

import dataclasses
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from grader.errors import GraderError
from grader.late import LatePolicy
from grader.model import POLICY_CASE_MODES, Limits
from grader.zones import UnknownZone, course_zone


class ConfigError(GraderError):
    """A bad course configuration; str() is one line naming the key."""


@dataclass(frozen=True)
class LanguageSpec:
    name: str  # c, cpp, java, python
    source: str  # the file name a submission must use
    build: tuple[str, ...]  # empty: nothing to build
    run: tuple[str, ...]  # may hold {input} and {heap_mb}
    memory_rlimit: bool = True  # False for the JVM: its heap is capped by -Xmx


DEFAULT_LANGUAGES = {
    "c": LanguageSpec(
        "c",
        "puzzlesolver.c",
        ("gcc", "-O2", "-std=gnu17", "-o", "puzzlesolver", "puzzlesolver.c"),
        ("./puzzlesolver", "{input}"),
    ),
    "cpp": LanguageSpec(
        "cpp",
        "puzzlesolver.cpp",
        ("g++", "-O2", "-std=gnu++17", "-o", "puzzlesolver", "puzzlesolver.cpp"),
        ("./puzzlesolver", "{input}"),
    ),
    "java": LanguageSpec(
        "java",
        "PuzzleSolver.java",
        ("javac", "-encoding", "UTF-8", "PuzzleSolver.java"),
        ("java", "-Xmx{heap_mb}m", "-XX:+UseSerialGC", "PuzzleSolver", "{input}"),
        memory_rlimit=False,
    ),
    "python": LanguageSpec(
        "python",
        "puzzlesolver.py",
        (),
        ("python3", "puzzlesolver.py", "{input}"),
    ),
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
    runs: int = 7  # timed runs per program and case
    warmup: int = 1  # untimed runs first
    cases: tuple[str, ...] = ()  # empty: every case marked timed in the manifest
    noise_floor: float = 0.03  # medians closer than this are never ranked apart
    alpha: float = 0.05  # significance level of the rank test
    # Points every member of every team ranked 1 gets in the gradebook exports (the
    # hand-out's +15); 0: no bonus.
    bonus: float = 15.0


@dataclass(frozen=True)
class TimeLimitConfig:
    """How `testcases timelimit` turns measured runs into a proposed limit."""

    k: float = 2.0  # CPU limit = k x the slowest accepted run (Kattis uses 2)
    runs: int = 3  # timed runs per program and case
    round_to: float = 0.5  # the CPU limit is rounded up to a multiple of this (seconds)
    wall_factor: float = 2.0  # wall limit = this x the CPU limit


@dataclass(frozen=True)
class LmsConfig:
    missing_as_zero: bool = False  # LMS exports: no submission -> 0 instead of an empty cell


@dataclass(frozen=True)
class TeamsConfig:
    # A CSV of the teams of a class folder made by hand (columns team, member), relative
    # to course.toml; "": none. What an LMS import recorded takes precedence.
    file: str = ""


@dataclass(frozen=True)
class ClusterConfig:
    scheduler: str = ""  # a Dask scheduler's address, or local:N; empty: grade on threads here
    cases_per_task: int = 8  # runs per unit of work sent to a worker (after its build)


@dataclass(frozen=True)
class CourseConfig:
    limits: Limits = Limits()
    build_limits: Limits = DEFAULT_BUILD_LIMITS
    languages: dict[str, LanguageSpec] = field(default_factory=lambda: dict(DEFAULT_LANGUAGES))
    sandbox: str = "auto"  # auto, bubblewrap or rlimits
    leaderboard: LeaderboardConfig = LeaderboardConfig()
    timelimit: TimeLimitConfig = TimeLimitConfig()
    late: LatePolicy = LatePolicy()  # no deadline: no late policy
    lms: LmsConfig = LmsConfig()
    cluster: ClusterConfig = ClusterConfig()
    teams: TeamsConfig = TeamsConfig()
    source: Path | None = None  # the file it came from, if any
    # [submissions] extra_files: "same-language" copies a submission's other source and
    # header files of its language beside the main file; "none" uses the main file only.
    extra_files: str = "same-language"
    # [scoring] policy_cases: how a case whose expected output depends on the project's
    # policy rules (manifest "policy") counts: "count" like any other (its losses shown
    # apart), "apart" outside the score with a score of its own, "forgive" a failure
    # the rule decides counts as passed (shown as forgiven).
    policy_cases: str = "count"

    def language_for(self, filename: str) -> LanguageSpec | None:
        for spec in self.languages.values():
            if spec.source == filename:
                return spec
        return None


_LIMIT_UNITS = {"stdout_bytes": ("stdout_kb", 1024), "stderr_bytes": ("stderr_kb", 1024)}


def default_course_file() -> Path:
    return Path(__file__).resolve().parent.parent / "course.toml"


def load_config(path: Path | None = None) -> CourseConfig:
    """Read course.toml (the project's, or `path`); defaults when it is absent."""
    explicit = path is not None
    path = Path(path) if path is not None else default_course_file()
    if not path.exists():
        if explicit:
            raise ConfigError(f"{path}: no such course configuration file")
        return CourseConfig()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    try:
        return _course(data, path)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None


def _course(data: dict, path: Path) -> CourseConfig:
    _known(
        data,
        {
            "limits",
            "build_limits",
            "languages",
            "sandbox",
            "leaderboard",
            "timelimit",
            "late",
            "lms",
            "submissions",
            "scoring",
            "cluster",
            "teams",
        },
        "",
    )
    sandbox = _choice(data, "sandbox", SANDBOX_CHOICES, "")
    return CourseConfig(
        limits=_limits(_table(data, "limits"), Limits(), "limits"),
        build_limits=_limits(_table(data, "build_limits"), DEFAULT_BUILD_LIMITS, "build_limits"),
        languages=_languages(_table(data, "languages")),
        sandbox=sandbox,
        leaderboard=_leaderboard(_table(data, "leaderboard")),
        timelimit=_timelimit(_table(data, "timelimit")),
        late=_late(_table(data, "late")),
        lms=_lms(_table(data, "lms")),
        cluster=_cluster(_table(data, "cluster")),
        teams=_teams(_table(data, "teams")),
        source=path,
        extra_files=_extra_files(_table(data, "submissions")),
        policy_cases=_policy_cases(_table(data, "scoring")),
    )


def _policy_cases(table: dict) -> str:
    _known(table, {"policy_cases"}, "scoring")
    return _choice(table, "policy_cases", POLICY_CASE_MODES, "scoring")


EXTRA_FILE_POLICIES = ("same-language", "none")
SANDBOX_CHOICES = ("auto", "bubblewrap", "rlimits")


def _extra_files(table: dict) -> str:
    _known(table, {"extra_files"}, "submissions")
    return _choice(table, "extra_files", EXTRA_FILE_POLICIES, "submissions")


def _limits(table: dict, default: Limits, prefix: str) -> Limits:
    names = {}
    for f in dataclasses.fields(Limits):
        key, scale = _LIMIT_UNITS.get(f.name, (f.name, 1))
        names[key] = (f.name, scale, f.type)
    _known(table, set(names), prefix)
    values = {}
    for key, (name, scale, kind) in names.items():
        if key not in table:
            continue
        number_types = (int, float) if kind in (float, "float") else int
        value = _typed(table, key, number_types, None, prefix)
        if value <= 0:
            raise ConfigError(f"key '{prefix}.{key}': must be positive, not {value}")
        values[name] = value * scale
    return dataclasses.replace(default, **values)


def _languages(table: dict) -> dict[str, LanguageSpec]:
    _known(table, set(DEFAULT_LANGUAGES), "languages")
    result = dict(DEFAULT_LANGUAGES)
    for name, entry in table.items():
        prefix = f"languages.{name}"
        if not isinstance(entry, dict):
            raise ConfigError(f"key '{prefix}': must be a table")
        _known(entry, {"build", "run"}, prefix)
        default = DEFAULT_LANGUAGES[name]
        build = tuple(_command(entry, "build", default.build, prefix, allow_empty=True))
        run = tuple(_command(entry, "run", default.run, prefix, allow_empty=False))
        if "{input}" not in run:
            raise ConfigError(f"key '{prefix}.run': must pass the puzzle as {{input}}")
        result[name] = dataclasses.replace(default, build=build, run=run)
    return result


def _leaderboard(table: dict) -> LeaderboardConfig:
    prefix = "leaderboard"
    _known(table, {f.name for f in dataclasses.fields(LeaderboardConfig)}, prefix)
    default = LeaderboardConfig()
    runs = _typed(table, "runs", int, default.runs, prefix)
    warmup = _typed(table, "warmup", int, default.warmup, prefix)
    noise = _typed(table, "noise_floor", (int, float), default.noise_floor, prefix)
    alpha = _typed(table, "alpha", (int, float), default.alpha, prefix)
    bonus = _typed(table, "bonus", (int, float), default.bonus, prefix)
    cases = table.get("cases", list(default.cases))
    if not isinstance(cases, list) or not all(isinstance(c, str) for c in cases):
        raise ConfigError(f"key '{prefix}.cases': must be a list of case ids")
    if runs < 3:
        raise ConfigError(f"key '{prefix}.runs': must be at least 3, not {runs}")
    if warmup < 0:
        raise ConfigError(f"key '{prefix}.warmup': must not be negative, not {warmup}")
    if not 0 <= noise < 1:
        raise ConfigError(f"key '{prefix}.noise_floor': must be in [0, 1), not {noise}")
    if not 0 < alpha < 1:
        raise ConfigError(f"key '{prefix}.alpha': must be in (0, 1), not {alpha}")
    if bonus < 0:
        raise ConfigError(f"key '{prefix}.bonus': must not be negative, not {bonus}")
    return LeaderboardConfig(runs, warmup, tuple(cases), float(noise), float(alpha), float(bonus))


def _timelimit(table: dict) -> TimeLimitConfig:
    prefix = "timelimit"
    _known(table, {f.name for f in dataclasses.fields(TimeLimitConfig)}, prefix)
    default = TimeLimitConfig()
    k = _typed(table, "k", (int, float), default.k, prefix)
    runs = _typed(table, "runs", int, default.runs, prefix)
    round_to = _typed(table, "round_to", (int, float), default.round_to, prefix)
    wall = _typed(table, "wall_factor", (int, float), default.wall_factor, prefix)
    if k < 1:
        raise ConfigError(f"key '{prefix}.k': must be at least 1, not {k}")
    if runs < 1:
        raise ConfigError(f"key '{prefix}.runs': must be at least 1, not {runs}")
    if round_to <= 0:
        raise ConfigError(f"key '{prefix}.round_to': must be positive, not {round_to}")
    if wall < 1:
        raise ConfigError(f"key '{prefix}.wall_factor': must be at least 1, not {wall}")
    return TimeLimitConfig(float(k), runs, float(round_to), float(wall))


def _late(table: dict) -> LatePolicy:
    prefix = "late"
    _known(
        table, {"deadline", "grace_minutes", "per_day_percent", "max_percent", "timezone"}, prefix
    )
    zone = _typed(table, "timezone", str, "", prefix).strip()
    try:
        course_zone(zone)
    except UnknownZone as error:
        raise ConfigError(
            f"key '{prefix}.timezone': {error} (an IANA name such as Europe/Berlin; "
            "empty: this machine's zone)"
        ) from None
    deadline = table.get("deadline")
    if isinstance(deadline, str):
        try:
            deadline = datetime.fromisoformat(deadline)
        except ValueError:
            raise ConfigError(
                f"key '{prefix}.deadline': not a date and time: {deadline!r}"
            ) from None
    if deadline is not None and not isinstance(deadline, datetime):
        raise ConfigError(
            f"key '{prefix}.deadline': must be a date and time "
            f"(2026-03-01T23:59:00-05:00), not {deadline!r}"
        )
    grace = _typed(table, "grace_minutes", (int, float), 0, prefix)
    per_day = _typed(table, "per_day_percent", (int, float), 0, prefix)
    cap = _typed(table, "max_percent", (int, float), 100, prefix)
    for key, value in (
        ("grace_minutes", grace),
        ("per_day_percent", per_day),
        ("max_percent", cap),
    ):
        if value < 0 or (key != "grace_minutes" and value > 100):
            raise ConfigError(f"key '{prefix}.{key}': out of range: {value}")
    if deadline is None and (per_day or "max_percent" in table or grace):
        raise ConfigError(f"key '{prefix}.deadline': a late penalty needs a deadline")
    return LatePolicy(deadline, float(grace), float(per_day), float(cap), zone)


def _lms(table: dict) -> LmsConfig:
    _known(table, {"missing_as_zero"}, "lms")
    value = table.get("missing_as_zero", False)
    if not isinstance(value, bool):
        raise ConfigError(f"key 'lms.missing_as_zero': must be true or false, not {value!r}")
    return LmsConfig(missing_as_zero=value)


def _teams(table: dict) -> TeamsConfig:
    _known(table, {"file"}, "teams")
    return TeamsConfig(_typed(table, "file", str, TeamsConfig.file, "teams").strip())


def _cluster(table: dict) -> ClusterConfig:
    prefix = "cluster"
    _known(table, {f.name for f in dataclasses.fields(ClusterConfig)}, prefix)
    scheduler = _typed(table, "scheduler", str, ClusterConfig.scheduler, prefix).strip()
    per_task = _typed(table, "cases_per_task", int, ClusterConfig.cases_per_task, prefix)
    if per_task < 1:
        raise ConfigError(f"key '{prefix}.cases_per_task': must be at least 1, not {per_task}")
    return ClusterConfig(scheduler, per_task)


def _command(table, key, default, prefix, allow_empty):
    value = table.get(key, list(default))
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"key '{prefix}.{key}': must be a list of strings (the command's words)")
    if not value and not allow_empty:
        raise ConfigError(f"key '{prefix}.{key}': must not be empty")
    return value


def _table(data: dict, key: str) -> dict:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"key '{key}': must be a table ([{key}])")
    return value


def _known(table: dict, allowed: set, prefix: str) -> None:
    for key in table:
        if key not in allowed:
            where = f"{prefix}.{key}" if prefix else key
            raise ConfigError(f"unknown key '{where}' (known: {', '.join(sorted(allowed))})")


def _choice(table: dict, key: str, choices: tuple[str, ...], prefix: str) -> str:
    """A word from `choices`; the first is the default."""
    value = _typed(table, key, str, choices[0], prefix)
    if value not in choices:
        where = f"{prefix}.{key}" if prefix else key
        allowed = f"{', '.join(choices[:-1])} or {choices[-1]}"
        raise ConfigError(f"key '{where}': must be {allowed}, not {value!r}")
    return value


def _typed(table: dict, key: str, kinds, default, prefix: str):
    if key not in table:
        return default
    value = table[key]
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    # bool is an int in Python; a limit of `true` is a mistake, not 1.
    if isinstance(value, bool) or not isinstance(value, kinds):
        where = f"{prefix}.{key}" if prefix else key
        wanted = " or ".join(k.__name__ for k in kinds)
        raise ConfigError(f"key '{where}': must be {wanted}, not {type(value).__name__} {value!r}")
    return value
