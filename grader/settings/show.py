"""The defaults of a dataclass that declares TOML keys (grader.settings.declare) as the
text of a TOML file: every key with its default and its comment, read back as the
defaults (a key with an example shows it commented out instead)."""

import dataclasses
import json
import textwrap
from typing import Any

from grader.settings.declare import Setting, declared_keys

COMMENT_COLUMN = 26  # where comments start, further right beside a longer line
WIDTH = 90


def show(default: Any, header: str) -> str:
    """The file: `header` as a comment, the top level's keys, then each table."""
    declared = declared_keys(default)
    top = [(f, s) for f, s in declared if not s.table and not _is_table(getattr(default, f.name))]
    lines = [*_comment(header, WIDTH), "", *_lines(default, top)]
    shown: set[str] = set()
    for field, s in declared:
        value, name = getattr(default, field.name), s.key_name(field)
        if s.table and s.table not in shown:  # keys of a table of their own: [scoring]
            shown.add(s.table)
            mine = [(f, other) for f, other in declared if other.table == s.table]
            lines += ["", f"[{s.table}]", *_lines(default, mine)]
        elif isinstance(value, dict):
            # Shown, not set: a course's copy of the file goes on taking the code's
            # defaults for the entries it does not change.
            lines += ["", *_comment(s.comment, WIDTH)]
            for entry, spec in value.items():
                table = [f"[{name}.{entry}]", *_lines(spec, declared_keys(spec))]
                lines += ["# " + line for line in table]
        elif _is_table(value):  # a dataclass: dicts are above
            lines += ["", *_beside(f"[{name}]", s.comment)]
            lines += _lines(value, declared_keys(value, s.keys))
    return "\n".join(lines) + "\n"


def _is_table(value: object) -> bool:
    return dataclasses.is_dataclass(value) or isinstance(value, dict)


def _lines(default: Any, declared: list[tuple[dataclasses.Field, Setting]]) -> list[str]:
    return [
        line
        for field, s in declared
        for line in _key(s.key_name(field), getattr(default, field.name), s)
    ]


def _key(name: str, value: Any, s: Setting) -> list[str]:
    if s.example:
        return _beside(f"# {name} = {s.example}", s.comment)
    if isinstance(value, int | float) and s.scale != 1:
        assert value % s.scale == 0, f"{name}: the default is no whole number of its unit"
        value //= s.scale
    return _beside(f"{name} = {toml_value(value)}", s.comment)


def _beside(line: str, comment: str) -> list[str]:
    """`line` with `comment` beside it, wrapped in a column of its own."""
    if not comment:
        return [line]
    column = max(COMMENT_COLUMN, len(line) + 2)
    wrapped = _comment(comment, WIDTH - column)
    return [line.ljust(column) + wrapped[0], *(" " * column + more for more in wrapped[1:])]


def _comment(text: str, width: int) -> list[str]:
    lines = textwrap.wrap(text, width - 2, break_long_words=False, break_on_hyphens=False)
    return ["# " + line for line in lines]  # never "same-" and "language" on two lines


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        # 10, not 10.0: a limit keeps the int it reads (grader.model's _limit says why)
        return str(int(value))
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string
    if isinstance(value, tuple):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    raise TypeError(f"no TOML for {value!r}")
