"""How a dataclass field is a key of a TOML table. Its type and default are the field's
own; its Setting (the field's metadata) says the rest: the comment shown beside it, the
checks its value must pass, and its name and unit where the file's differ."""

import math
from collections.abc import Callable, Collection, Mapping
from dataclasses import Field, dataclass, fields
from typing import TYPE_CHECKING, Any

from grader.core.errors import GraderError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

# What is wrong with a value given for a key ("must be positive, not 0"), or None.
Check = Callable[[Any], str | None]
# A rule across a table's keys: given the table as written and as read, the key at
# fault and what is wrong, or None.
TableCheck = Callable[[Mapping[str, object], Any], tuple[str, str] | None]

_METADATA = "grader.core.settings"


class BadSetting(GraderError):
    """A value that does not fit its key; str() is one line naming the key."""


@dataclass(frozen=True)
class Setting:
    comment: str = ""  # shown beside the key in the file of defaults
    checks: tuple[Check, ...] = ()  # run on the value as written, in order
    name: str = ""  # the key, when it is not the field's name
    scale: int = 1  # the field holds the key's value times this (KiB: 1024)
    items: str = "strings"  # what a list holds, in words: "must be a list of <items>"
    table: str = ""  # read from this table of its own rather than the field's class's
    example: str = ""  # shown commented out with this value instead of the default
    strip: bool = False  # white space around a string dropped
    as_written: bool = False  # an int given for a float key stays an int
    key: bool = True  # False: the program fills it in, the file cannot
    # A table's:
    table_check: TableCheck | None = None
    keys: Mapping[str, "Setting"] | None = None  # its keys', when its class declares none

    def key_name(self, field: Field[Any]) -> str:
        return self.name or field.name


def setting(comment: str = "", *checks: Check, **options: Any) -> dict[str, Setting]:
    """A field's metadata: field(default=7, metadata=setting("timed runs", at_least(3)))."""
    return {_METADATA: Setting(comment, checks, **options)}


NOT_A_KEY = {_METADATA: Setting(key=False)}


def declared_keys(
    default: "DataclassInstance", keys: Mapping[str, Setting] | None = None
) -> list[tuple[Field[Any], Setting]]:
    """The fields of a dataclass that are keys, with their Settings: from `keys` (its
    table's, for a class declaring none), else their own metadata."""
    pairs = []
    for field in fields(default):
        found = keys[field.name] if keys is not None else field.metadata.get(_METADATA, Setting())
        assert isinstance(found, Setting), f"{field.name}: no Setting"
        if found.key:
            pairs.append((field, found))
    return pairs


# ------------------------------------------------------------ the usual checks


def positive(value: float) -> str | None:
    return None if value > 0 else f"must be positive, not {value}"


def not_negative(value: float) -> str | None:
    return None if value >= 0 else f"must not be negative, not {value}"


def not_empty(value: object) -> str | None:
    return None if value else "must not be empty"


def finite(value: float) -> str | None:
    return None if math.isfinite(value) else f"must be a finite number, not {value}"


def at_most(high: float, what: str = "") -> Check:
    def check(value: float) -> str | None:
        if value <= high:
            return None
        return f"must be at most {_number(high)}{what}, not {_number(value)}"

    return check


def _number(value: float) -> str:
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


def at_least(low: float) -> Check:
    def check(value: float) -> str | None:
        return None if value >= low else f"must be at least {low}, not {value}"

    return check


def in_range(low: float, high: float = float("inf")) -> Check:
    def check(value: float) -> str | None:
        return None if low <= value <= high else f"out of range: {value}"

    return check


def interval(low: float, high: float, *, closed_low: bool) -> Check:
    """In [low, high), or (low, high) when not closed_low."""
    shown = f"{'[' if closed_low else '('}{low:g}, {high:g})"

    def check(value: float) -> str | None:
        above = value >= low if closed_low else value > low
        return None if above and value < high else f"must be in {shown}, not {value}"

    return check


def one_of(registry: Collection[str]) -> Check:
    """One of a registry's names (a closed set, read when the key is)."""

    def check(value: str) -> str | None:
        if value in registry:
            return None
        names = sorted(registry)
        allowed = f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else names[0]
        return f"must be {allowed}, not {value!r}"

    return check
