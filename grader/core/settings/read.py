"""A TOML table read into the dataclass that declares its keys (grader.core.settings.declare):
each key's value checked against the field's type and its Setting's checks, a table
against its class, with one BadSetting naming the key for the first thing wrong."""

import dataclasses
import types
import typing
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, TypeVar, Union

from grader.core.settings.declare import BadSetting, Setting, declared_keys

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T", bound="DataclassInstance")


def read(
    default: T,
    table: Mapping[str, object],
    where: str = "",
    keys: Mapping[str, Setting] | None = None,
) -> T:
    """`default` (a dataclass) with the values `table` gives its keys; `where` is the
    table's name ("" for the file's top level), `keys` its keys' Settings when its class
    declares none."""
    declared = declared_keys(default, keys)
    own = {s.key_name(field) for field, s in declared if not s.table}
    _known(table, own | {s.table for _, s in declared if s.table}, where)
    hints = typing.get_type_hints(type(default))
    tables: dict[str, Mapping[str, object]] = {}
    values = {}
    for field, s in declared:
        source, at = table, where
        if s.table:
            at = _join(where, s.table)
            if s.table not in tables:
                tables[s.table] = _table(table, s.table, where)
                _known(
                    tables[s.table],
                    {s.key_name(f) for f, other in declared if other.table == s.table},
                    at,
                )
            source = tables[s.table]
        current = getattr(default, field.name)
        values[field.name] = _value(hints[field.name], source, s.key_name(field), current, s, at)
    return dataclasses.replace(default, **values)


def _value(
    kind: Any, table: Mapping[str, object], key: str, default: Any, s: Setting, where: str
) -> Any:
    at = _join(where, key)
    if dataclasses.is_dataclass(kind):
        given = _table(table, key, where)
        value = read(default, given, at, s.keys)
        fault = s.table_check(given, value) if s.table_check else None
        if fault:
            raise BadSetting(f"key '{_join(at, fault[0])}': {fault[1]}")
        return value
    if typing.get_origin(kind) is dict:
        return _named_tables(_table(table, key, where), default, at)
    if key not in table:
        return float(default) if kind is float and not s.as_written else default
    value = _typed(kind, table[key], s, at)
    if s.strip:
        value = value.strip()
    for check in s.checks:
        problem = check(value)
        if problem:
            raise BadSetting(f"key '{at}': {problem}")
    if kind is float and not s.as_written:
        value = float(value)
    if s.scale != 1:  # never a bool's: True * 1 is 1
        value *= s.scale
    return value


def _named_tables(given: Mapping[str, object], defaults: dict[str, T], where: str) -> dict[str, T]:
    """A table of tables, each named by a key of `defaults` and read over its default."""
    _known(given, set(defaults), where)
    result = dict(defaults)
    for name, entry in given.items():
        if not isinstance(entry, dict):
            raise BadSetting(f"key '{where}.{name}': must be a table")
        result[name] = read(defaults[name], entry, f"{where}.{name}")
    return result


def _typed(kind: Any, value: object, s: Setting, where: str) -> Any:
    """The value if it is of the key's type (as TOML gives it), else BadSetting."""
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin in (Union, types.UnionType) and type(None) in args:  # None: the default only
        (kind,) = (arg for arg in args if arg is not type(None))
        origin, args = typing.get_origin(kind), typing.get_args(kind)
    if kind is bool:
        if not isinstance(value, bool):
            raise BadSetting(f"key '{where}': must be true or false, not {value!r}")
        return value
    if kind in (int, float, str):
        return _plain(value, (int, float) if kind is float else (kind,), where)
    if origin is Literal:
        word = _plain(value, (str,), where)
        if word not in args:
            allowed = f"{', '.join(args[:-1])} or {args[-1]}"
            raise BadSetting(f"key '{where}': must be {allowed}, not {word!r}")
        return word
    if origin is tuple and args == (str, ...):
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise BadSetting(f"key '{where}': must be a list of {s.items}")
        return tuple(value)
    if kind is datetime:
        if isinstance(value, str):
            try:
                value = datetime.fromisoformat(value)
            except ValueError:
                raise BadSetting(f"key '{where}': not a date and time: {value!r}") from None
        if not isinstance(value, datetime):
            raise BadSetting(f"key '{where}': must be a date and time ({s.example}), not {value!r}")
        return value
    raise TypeError(f"{where}: no reader for a key of type {kind}")


def _plain(value: object, kinds: tuple[type, ...], where: str) -> Any:
    # bool is an int in Python; a limit of `true` is a mistake, not 1.
    if isinstance(value, bool) or not isinstance(value, kinds):
        wanted = " or ".join(kind.__name__ for kind in kinds)
        raise BadSetting(f"key '{where}': must be {wanted}, not {type(value).__name__} {value!r}")
    return value


def _table(table: Mapping[str, object], key: str, where: str) -> Mapping[str, object]:
    value = table.get(key, {})
    if not isinstance(value, dict):
        at = _join(where, key)
        raise BadSetting(f"key '{at}': must be a table ([{at}])")
    return value


def _known(table: Mapping[str, object], allowed: set[str], where: str) -> None:
    for key in table:
        if key not in allowed:
            known = ", ".join(sorted(allowed))
            raise BadSetting(f"unknown key '{_join(where, key)}' (known: {known})")


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key
