"""The defaults of a dataclass that declares TOML keys (grader.core.settings.declare) as the
text of a TOML file: every key with its default and its comment, read back as the
defaults (a key with an example shows it commented out instead)."""

import dataclasses
import json
import textwrap
from dataclasses import dataclass
from typing import Any

from grader.core.settings.declare import Setting, declared_keys

COMMENT_COLUMN = 26  # where comments start, further right beside a longer line
WIDTH = 90


@dataclass(frozen=True)
class Table:
    """One table of the file, as the defaults declare it: its keys, each with its
    default and its Setting."""

    name: str  # "" for the top level's keys; "limits"; "languages.c"
    keys: tuple[tuple[str, Any, Setting], ...]
    comment: str = ""  # beside its [name] line
    intro: str | None = None  # the comment on lines of their own before it
    example: bool = False  # shown commented out: the code's defaults stand


def tables(default: Any) -> list[Table]:
    """Every table of the file, in its order: the top level's keys first."""
    declared = declared_keys(default)
    top = [(f, s) for f, s in declared if not s.table and not _is_table(getattr(default, f.name))]
    found = [Table("", _keys(default, top))]
    shown: set[str] = set()
    for field, s in declared:
        value, name = getattr(default, field.name), s.key_name(field)
        if s.table and s.table not in shown:  # keys of a table of their own: [scoring]
            shown.add(s.table)
            mine = [(f, other) for f, other in declared if other.table == s.table]
            found.append(Table(s.table, _keys(default, mine)))
        elif isinstance(value, dict):
            # Shown, not set: a course's copy of the file goes on taking the code's
            # defaults for the entries it does not change.
            found += [
                Table(f"{name}.{entry}", _keys(spec, declared_keys(spec)),
                      intro=s.comment if i == 0 else None, example=True)
                for i, (entry, spec) in enumerate(value.items())
            ]  # fmt: skip
        elif _is_table(value):  # a dataclass: dicts are above
            found.append(Table(name, _keys(value, declared_keys(value, s.keys)), s.comment))
    return found


def show(default: Any, header: str) -> str:
    """The file: `header` as a comment, the top level's keys, then each table."""
    top, *rest = tables(default)
    lines = [*_comment(header, WIDTH), "", *_lines(top.keys)]
    for table in rest:
        if table.intro is not None:
            lines += ["", *_comment(table.intro, WIDTH)]
        if table.example:
            lines += ["# " + line for line in [f"[{table.name}]", *_lines(table.keys)]]
        else:
            lines += ["", *_beside(f"[{table.name}]", table.comment), *_lines(table.keys)]
    return "\n".join(lines) + "\n"


def _is_table(value: object) -> bool:
    return dataclasses.is_dataclass(value) or isinstance(value, dict)


def _keys(
    default: Any, declared: list[tuple[dataclasses.Field[Any], Setting]]
) -> tuple[tuple[str, Any, Setting], ...]:
    return tuple((s.key_name(field), getattr(default, field.name), s) for field, s in declared)


def _lines(keys: tuple[tuple[str, Any, Setting], ...]) -> list[str]:
    return [line for name, value, s in keys for line in _key(name, value, s)]


def _key(name: str, value: Any, s: Setting) -> list[str]:
    if s.example:
        return _beside(f"# {name} = {s.example}", s.comment)
    return _beside(f"{name} = {default_text(value, s)}", s.comment)


def default_text(value: Any, s: Setting) -> str:
    """A key's default as the file writes it: TOML, in the key's own unit."""
    if isinstance(value, int | float) and s.scale != 1:
        assert value % s.scale == 0, f"{value}: the default is no whole number of its unit"
        value //= s.scale
    return _toml(value)


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


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        # 10, not 10.0: a limit keeps the int it reads (grader.core.model's _limit says why)
        return str(int(value))
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    raise TypeError(f"no TOML for {value!r}")
