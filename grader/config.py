"""Course configuration: `course.toml` -> dataclasses, with the spec's defaults.

Every key is checked: an unknown key, a wrong type or a negative limit is one
ConfigError naming the file and the key, before anything is graded.
"""

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Optional, Tuple

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from grader.model import Limits


class ConfigError(Exception):
    """A bad course configuration; str() is one line naming the key."""


@dataclass(frozen=True)
class LanguageSpec:
    name: str  # c, cpp, java, python
    source: str  # the file name a submission must use
    build: Tuple[str, ...]  # empty: nothing to build
    run: Tuple[str, ...]  # may hold {input} and {heap_mb}
    memory_rlimit: bool = True  # False for the JVM: its heap is capped by -Xmx


DEFAULT_LANGUAGES = {
    "c": LanguageSpec(
        "c", "puzzlesolver.c",
        ("gcc", "-O2", "-std=gnu17", "-o", "puzzlesolver", "puzzlesolver.c"),
        ("./puzzlesolver", "{input}"),
    ),
    "cpp": LanguageSpec(
        "cpp", "puzzlesolver.cpp",
        ("g++", "-O2", "-std=gnu++17", "-o", "puzzlesolver", "puzzlesolver.cpp"),
        ("./puzzlesolver", "{input}"),
    ),
    "java": LanguageSpec(
        "java", "PuzzleSolver.java",
        ("javac", "-encoding", "UTF-8", "PuzzleSolver.java"),
        ("java", "-Xmx{heap_mb}m", "-XX:+UseSerialGC", "PuzzleSolver", "{input}"),
        memory_rlimit=False,
    ),
    "python": LanguageSpec(
        "python", "puzzlesolver.py", (), ("python3", "puzzlesolver.py", "{input}"),
    ),
}

DEFAULT_BUILD_LIMITS = Limits(
    cpu_seconds=60, wall_seconds=120, memory_mb=2048, processes=128,
    file_size_mb=64, open_files=256, stdout_bytes=64 << 10, stderr_bytes=64 << 10,
)


@dataclass(frozen=True)
class LeaderboardConfig:
    runs: int = 7  # timed runs per program and case
    warmup: int = 1  # untimed runs first
    cases: Tuple[str, ...] = ()  # empty: every case marked timed in the manifest
    noise_floor: float = 0.03  # medians closer than this are never ranked apart
    alpha: float = 0.05  # significance level of the rank test


@dataclass(frozen=True)
class ClusterConfig:
    scheduler: str = ""  # a Dask scheduler's address, or local:N; empty: grade on threads here
    cases_per_task: int = 8  # runs per unit of work sent to a worker (after its build)


@dataclass(frozen=True)
class CourseConfig:
    limits: Limits = Limits()
    build_limits: Limits = DEFAULT_BUILD_LIMITS
    languages: Dict[str, LanguageSpec] = field(default_factory=lambda: dict(DEFAULT_LANGUAGES))
    sandbox: str = "auto"  # auto, bubblewrap or rlimits
    leaderboard: LeaderboardConfig = LeaderboardConfig()
    cluster: ClusterConfig = ClusterConfig()
    source: Optional[Path] = None  # the file it came from, if any

    def language_for(self, filename: str) -> Optional[LanguageSpec]:
        for spec in self.languages.values():
            if spec.source == filename:
                return spec
        return None


_LIMIT_UNITS = {"stdout_bytes": ("stdout_kb", 1024), "stderr_bytes": ("stderr_kb", 1024)}


def default_course_file() -> Path:
    return Path(__file__).resolve().parent.parent / "course.toml"


def load_config(path: Optional[Path] = None) -> CourseConfig:
    """Read course.toml (the project's, or `path`); defaults when it is absent."""
    explicit = path is not None
    path = Path(path) if explicit else default_course_file()
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
    _known(data, {"limits", "build_limits", "languages", "sandbox", "leaderboard", "cluster"}, "")
    sandbox = _typed(data, "sandbox", str, "auto", "")
    if sandbox not in ("auto", "bubblewrap", "rlimits"):
        raise ConfigError(f"key 'sandbox': must be auto, bubblewrap or rlimits, not {sandbox!r}")
    return CourseConfig(
        limits=_limits(_table(data, "limits"), Limits(), "limits"),
        build_limits=_limits(_table(data, "build_limits"), DEFAULT_BUILD_LIMITS, "build_limits"),
        languages=_languages(_table(data, "languages")),
        sandbox=sandbox,
        leaderboard=_leaderboard(_table(data, "leaderboard")),
        cluster=_cluster(_table(data, "cluster")),
        source=path,
    )


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


def _languages(table: dict) -> Dict[str, LanguageSpec]:
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
    return LeaderboardConfig(runs, warmup, tuple(cases), float(noise), float(alpha))


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
