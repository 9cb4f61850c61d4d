"""course.toml: defaults, overrides, and one clear error per bad key."""

import dataclasses

import pytest

from grader.course.config import (
    DEFAULT_LANGUAGES,
    ConfigError,
    CourseConfig,
    course_file_text,
    default_course_file,
    load_config,
    tomllib,
)
from grader.exports.common import _pyproject_dependencies, requirements_txt
from tests.helpers import ROOT

pytestmark = pytest.mark.fast


def write(tmp_path, text):
    path = tmp_path / "course.toml"
    path.write_text(text)
    return path


def test_shipped_course_file_is_valid_and_matches_the_spec_defaults():
    config = load_config()
    assert config.languages == DEFAULT_LANGUAGES
    assert config.languages["c"].build == (
        "gcc",
        "-O2",
        "-std=gnu17",
        "-o",
        "puzzlesolver",
        "puzzlesolver.c",
    )
    assert config.languages["java"].memory_rlimit is False
    assert config.limits.stdout_bytes == 8192 * 1024


def test_overrides_take_effect(tmp_path):
    config = load_config(
        write(
            tmp_path,
            """
[limits]
cpu_seconds = 2.5
memory_mb = 256
stdout_kb = 100
[languages.c]
build = ["gcc", "-O3", "-o", "puzzlesolver", "puzzlesolver.c"]
[leaderboard]
runs = 5
bonus = 0
[teams]
file = " teams.csv "
""",
        )
    )
    assert config.limits.cpu_seconds == 2.5
    assert config.limits.memory_mb == 256
    assert config.limits.stdout_bytes == 100 * 1024
    assert config.languages["c"].build[1] == "-O3"
    assert config.languages["c"].run == DEFAULT_LANGUAGES["c"].run
    assert config.leaderboard.runs == 5
    assert config.leaderboard.bonus == 0 and config.teams.file == "teams.csv"


@pytest.mark.parametrize(
    "text, key",
    [
        ("colour = 1", "colour"),
        ("[limits]\ncpu_secs = 1", "limits.cpu_secs"),
        ("[limits]\ncpu_seconds = 'ten'", "limits.cpu_seconds"),
        ("[limits]\nmemory_mb = -5", "limits.memory_mb"),
        ("[limits]\nmemory_mb = 0", "limits.memory_mb"),
        ("[limits]\nprocesses = 1.5", "limits.processes"),
        ("[limits]\nopen_files = true", "limits.open_files"),
        ("[languages.cobol]\nbuild = []", "languages.cobol"),
        ("[languages.c]\nbuild = 'gcc x.c'", "languages.c.build"),
        ("[languages.c]\nrun = ['./puzzlesolver']", "languages.c.run"),
        ("sandbox = 'docker'", "sandbox"),
        ("[leaderboard]\nruns = 1", "leaderboard.runs"),
        ("[leaderboard]\nnoise_floor = 2", "leaderboard.noise_floor"),
        ("[leaderboard]\nbonus = -15", "leaderboard.bonus"),
        ("[leaderboard]\nbonus = '15'", "leaderboard.bonus"),
        ("[teams]\nfile = 3", "teams.file"),
        ("[teams]\nfiles = 'teams.csv'", "teams.files"),
        ("limits = 3", "limits"),
    ],
)
def test_bad_configuration_names_the_key(tmp_path, text, key):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    message = str(error.value)
    assert f"'{key}'" in message and str(path) in message
    assert "\n" not in message


def test_invalid_toml_and_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(write(tmp_path, "[limits\n"))
    with pytest.raises(ConfigError, match="no such course configuration file"):
        load_config(tmp_path / "nope.toml")


def _course_file_with_comments_as_keys(text: str) -> str:
    """course.toml with its commented-out tables ("# [languages.c]" and the "# run = [...]"
    keys under them) made real: what the file says the defaults are. Commented keys
    under a real table are examples (a deadline, say), not defaults, and stay comments."""
    lines, in_commented_table = [], False
    for line in text.splitlines():
        if line.startswith("# ["):
            in_commented_table = True
        elif not line.startswith("# "):
            in_commented_table = False
        if in_commented_table and line.startswith("# "):
            line = line[2:]
        lines.append(line)
    return "\n".join(lines) + "\n"


def test_course_toml_is_the_declaration_of_the_keys():
    # One home for each key (its field in grader/course/config.py): course.toml only shows it.
    assert default_course_file().read_text() == course_file_text(), (
        "course.toml is not what grader/course/config.py declares; write it again with\n"
        "  .venv/bin/python -c 'from grader.course.config import course_file_text as t; "
        'print(t(), end="")\' > course.toml'
    )


def test_the_file_of_defaults_reads_back_as_the_defaults(tmp_path):
    shown = _course_file_with_comments_as_keys(course_file_text())
    assert "[languages.java]" in shown and "# deadline = " in shown  # examples stay comments
    config = load_config(write(tmp_path, shown))
    assert dataclasses.replace(config, source=None) == CourseConfig()
    # Whole seconds shown as ints, as when the file was written by hand: the limits read
    # from it keep the repr, and so grader.results.regrade's fingerprint, they had.
    assert repr(config.limits) == repr(CourseConfig().limits).replace(".0,", ",")


def test_export_requirements_are_the_pyproject_dependencies():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = [r.replace("'", '"') for r in pyproject["project"]["dependencies"]]
    assert requirements_txt().splitlines() == listed
    assert _pyproject_dependencies() == pyproject["project"]["dependencies"]


@pytest.mark.parametrize(
    "text, message",
    [
        ("sandbox = 'docker'", "key 'sandbox': must be auto, bubblewrap or rlimits, not 'docker'"),
        (
            "[scoring]\npolicy_cases = 'drop'",
            "key 'scoring.policy_cases': must be count, apart or forgive, not 'drop'",
        ),
        (
            "[submissions]\nextra_files = 'all'",
            "key 'submissions.extra_files': must be same-language or none, not 'all'",
        ),
    ],
)
def test_a_word_from_a_fixed_set_lists_the_choices(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value).endswith(message)


def test_the_first_choice_is_the_default(tmp_path):
    config = load_config(write(tmp_path, ""))
    assert (config.sandbox, config.policy_cases, config.extra_files) == (
        "auto",
        "count",
        "same-language",
    )


_LIMIT_KEYS = (
    "cpu_seconds, file_size_mb, memory_mb, open_files, processes, stderr_kb, stdout_kb,"
    " wall_seconds"
)


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "colour = 1",
            "unknown key 'colour' (known: build_limits, cluster, counterexamples, languages,"
            " late, leaderboard, limits, lms, sandbox, scoring, submissions, teams, timelimit)",
        ),
        ("limits = 3", "key 'limits': must be a table ([limits])"),
        ("scoring = 'x'", "key 'scoring': must be a table ([scoring])"),
        ("[limits]\nstdout_bytes = 5", f"unknown key 'limits.stdout_bytes' (known: {_LIMIT_KEYS})"),
        (
            "[limits]\ncpu_seconds = 'ten'",
            "key 'limits.cpu_seconds': must be int or float, not str 'ten'",
        ),
        ("[limits]\nprocesses = 1.5", "key 'limits.processes': must be int, not float 1.5"),
        ("[limits]\nopen_files = true", "key 'limits.open_files': must be int, not bool True"),
        ("[limits]\nmemory_mb = 0", "key 'limits.memory_mb': must be positive, not 0"),
        ("[limits]\nwall_seconds = -0.5", "key 'limits.wall_seconds': must be positive, not -0.5"),
        (
            "[build_limits]\nstdout_kb = -1",
            "key 'build_limits.stdout_kb': must be positive, not -1",
        ),
        ("languages = 1", "key 'languages': must be a table ([languages])"),
        ("[languages]\nc = 1", "key 'languages.c': must be a table"),
        (
            "[languages.cobol]\nbuild = []",
            "unknown key 'languages.cobol' (known: c, cpp, java, python, rust)",
        ),
        ("[languages.c]\nsource = 'x.c'", "unknown key 'languages.c.source' (known: build, run)"),
        (
            "[languages.c]\nbuild = 'gcc x.c'",
            "key 'languages.c.build': must be a list of strings (the command's words)",
        ),
        (
            "[languages.python]\nrun = ['python3', 1]",
            "key 'languages.python.run': must be a list of strings (the command's words)",
        ),
        ("[languages.c]\nrun = []", "key 'languages.c.run': must not be empty"),
        (
            "[languages.c]\nrun = ['./puzzlesolver']",
            "key 'languages.c.run': must pass the puzzle as {input}",
        ),
        ("sandbox = 1", "key 'sandbox': must be str, not int 1"),
        ("[scoring]\nother = 1", "unknown key 'scoring.other' (known: policy_cases)"),
        ("[leaderboard]\nruns = 2", "key 'leaderboard.runs': must be at least 3, not 2"),
        ("[leaderboard]\nruns = 3.0", "key 'leaderboard.runs': must be int, not float 3.0"),
        (
            "[leaderboard]\nruns = 3",
            "key 'leaderboard.runs': with 3 runs per program the rank test can never reach "
            "p < 0.05 (its smallest p-value is 0.1): every program would tie at rank 1; give "
            "at least 4 runs",
        ),
        (
            "[leaderboard]\nruns = 5\nalpha = 0.001",
            "key 'leaderboard.runs': with 5 runs per program the rank test can never reach "
            "p < 0.001 (its smallest p-value is 0.00794): every program would tie at rank 1; "
            "give at least 7 runs",
        ),
        ("[leaderboard]\nwarmup = -1", "key 'leaderboard.warmup': must not be negative, not -1"),
        ("[leaderboard]\ncases = 'c1'", "key 'leaderboard.cases': must be a list of case ids"),
        ("[leaderboard]\ncases = [1]", "key 'leaderboard.cases': must be a list of case ids"),
        (
            "[leaderboard]\nnoise_floor = 1",
            "key 'leaderboard.noise_floor': must be in [0, 1), not 1",
        ),
        ("[leaderboard]\nalpha = 0", "key 'leaderboard.alpha': must be in (0, 1), not 0"),
        ("[leaderboard]\nalpha = 1.0", "key 'leaderboard.alpha': must be in (0, 1), not 1.0"),
        ("[timelimit]\nk = 0", "key 'timelimit.k': must be at least 1, not 0"),
        ("[timelimit]\nround_to = -1", "key 'timelimit.round_to': must be positive, not -1"),
        (
            "[late]\ndeadline = 2026-03-01",
            "key 'late.deadline': must be a date and time (2026-03-01T23:59:00-05:00), "
            "not datetime.date(2026, 3, 1)",
        ),
        ("[late]\ndeadline = 'tomorrow'", "key 'late.deadline': not a date and time: 'tomorrow'"),
        ("[late]\nper_day_percent = 10", "key 'late.deadline': a late penalty needs a deadline"),
        ("[late]\nmax_percent = 100", "key 'late.deadline': a late penalty needs a deadline"),
        ("[late]\ngrace_minutes = 5", "key 'late.deadline': a late penalty needs a deadline"),
        (
            "[late]\ndeadline = 2026-03-01T10:00:00\ngrace_minutes = -1",
            "key 'late.grace_minutes': out of range: -1",
        ),
        (
            "[late]\ndeadline = 2026-03-01T10:00:00\nper_day_percent = 100.5",
            "key 'late.per_day_percent': out of range: 100.5",
        ),
        (
            "[late]\ndeadline = 2026-03-01T10:00:00\nmax_percent = 'all'",
            "key 'late.max_percent': must be int or float, not str 'all'",
        ),
        ("[late]\ntimezone = 5", "key 'late.timezone': must be str, not int 5"),
        (
            "[late]\ntimezone = 'Mars/Olympus_Mons'",
            "key 'late.timezone': not a time zone: 'Mars/Olympus_Mons' (an IANA name such as "
            "Europe/Berlin; empty: this machine's zone)",
        ),
        (
            "[late]\nzone = 'UTC'",
            "unknown key 'late.zone' (known: deadline, extensions, grace_minutes, "
            "max_percent, per_day_percent, timezone)",
        ),
        ("[lms]\nmissing_as_zero = 0", "key 'lms.missing_as_zero': must be true or false, not 0"),
        (
            "[cluster]\ncases_per_task = 0",
            "key 'cluster.cases_per_task': must be at least 1, not 0",
        ),
        ("[cluster]\nscheduler = 1", "key 'cluster.scheduler': must be str, not int 1"),
    ],
)
def test_every_kind_of_bad_value_has_its_own_one_line_message(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value) == f"{path}: {message}"


def test_values_are_read_as_their_keys_declare(tmp_path):
    config = load_config(
        write(
            tmp_path,
            "[limits]\ncpu_seconds = 2\nstderr_kb = 3\n[timelimit]\nk = 2\n"
            "[late]\ndeadline = '2026-03-01T10:00:00'\ntimezone = ' Europe/Berlin '\n"
            "[cluster]\nscheduler = ' local:2 '\n",
        )
    )
    # A limit keeps the number as written: grader.results.regrade fingerprints repr(limits),
    # and a results folder graded before holds the fingerprint of the int.
    assert repr(config.limits.cpu_seconds) == "2" and config.limits.stderr_bytes == 3 * 1024
    assert repr(config.timelimit.k) == "2.0"  # the other numbers of a float key: floats
    late = config.late
    assert repr((late.grace_minutes, late.per_day_percent, late.max_percent)) == "(0.0, 0.0, 100.0)"
    assert late.deadline is not None and late.deadline.isoformat() == "2026-03-01T10:00:00"
    assert (late.timezone, config.cluster.scheduler) == ("Europe/Berlin", "local:2")
    assert config.source == tmp_path / "course.toml"
