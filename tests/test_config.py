"""course.toml: defaults, overrides, and one clear error per bad key."""

import dataclasses

import pytest

from grader.config import (
    DEFAULT_LANGUAGES,
    ConfigError,
    CourseConfig,
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
        ("[languages.rust]\nbuild = []", "languages.rust"),
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


def test_course_toml_shows_exactly_the_defaults_of_the_code(tmp_path):
    # One home for each default (the code): course.toml only shows them, and this
    # test fails when the two disagree.
    shown = _course_file_with_comments_as_keys(default_course_file().read_text())
    assert "[languages.java]" in shown
    config = load_config(write(tmp_path, shown))
    assert dataclasses.replace(config, source=None) == CourseConfig()


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
