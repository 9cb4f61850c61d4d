"""The reference pages, generated from the code: every command and option (from the
argument parsers), every course.toml key (from grader/config.py's declarations), and
results.json's fields (from its JSON schema)."""

import argparse
import dataclasses
import json
from collections.abc import Iterator
from importlib import resources
from typing import Any

from grader import cli as grader_cli
from grader.config import CourseConfig
from grader.settings.declare import Setting, declared_keys
from grader.settings.show import toml_value
from testcases import cli as testcases_cli

PAGES = {
    "reference/commands.md": "commands",
    "reference/configuration.md": "configuration",
    "reference/results.md": "results",
}


def page(name: str) -> str:
    return {"commands": commands, "configuration": configuration, "results": results}[name]()


# ------------------------------------------------------------------ commands


def commands() -> str:
    lines = [
        "# Commands",
        "",
        "Every command and option, as `--help` prints them (generated from the argument",
        "parsers when the site is built). `grader` grades and exports; `testcases` is the",
        "course staff's tooling for the cases.",
        "",
    ]
    for program, parser in (
        ("grader", grader_cli.parser()),
        ("testcases", testcases_cli.parser()),
    ):
        lines += [f"## {program}", ""]
        for path, sub in walk(parser, program):
            lines += _command(path, sub)
    return "\n".join(lines) + "\n"


def walk(
    parser: argparse.ArgumentParser, path: str
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """The parser and every subcommand below it, depth first, in `--help`'s order."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from walk(sub, f"{path} {name}")


def subcommands(parser: argparse.ArgumentParser) -> list[str]:
    """The names `--help` lists as the parser's subcommands."""
    return [
        name
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
        for name in action.choices
    ]


def _command(path: str, parser: argparse.ArgumentParser) -> list[str]:
    depth = "###" if path.count(" ") == 1 else "####" if path.count(" ") > 1 else ""
    heading = [f"{depth} `{path}`", ""] if depth else []
    parser.prog = path
    text = parser.format_help().rstrip()
    return [*heading, "```text", text, "```", ""]


# ------------------------------------------------------------------ course.toml


def configuration() -> str:
    lines = [
        "# Configuration: course.toml",
        "",
        "Every key, its default and what it does, generated from the declarations in",
        "`grader/config.py` (the same ones that read the file and write the project's",
        "`course.toml`). Every key is optional; an unknown key, a wrong type or a value",
        "out of range is refused with an error naming the key. `--course FILE` picks",
        "another file.",
        "",
    ]
    for table, rows in config_tables():
        title = f"`[{table}]`" if table else "Top level"
        lines += [f"## {title}", "", "| key | default | what it does |", "|---|---|---|"]
        lines += [
            f"| `{key}` | `{_cell(default)}` | {_cell(comment)} |" for key, default, comment in rows
        ]
        lines.append("")
    return "\n".join(lines) + "\n"


def config_tables() -> list[tuple[str, list[tuple[str, str, str]]]]:
    """[(table, [(key, default as TOML, comment)])], the top level's table named ""."""
    default = CourseConfig()
    tables: dict[str, list[tuple[str, str, str]]] = {"": []}
    for field, s in declared_keys(default):
        value, name = getattr(default, field.name), s.key_name(field)
        if s.table:
            tables.setdefault(s.table, []).append(_row(name, value, s))
        elif isinstance(value, dict):
            for entry, spec in value.items():
                rows = tables.setdefault(f"{name}.{entry}", [])
                rows += [
                    _row(k.key_name(f), getattr(spec, f.name), k) for f, k in declared_keys(spec)
                ]
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            rows = tables.setdefault(name, [])
            rows += [
                _row(k.key_name(f), getattr(value, f.name), k)
                for f, k in declared_keys(value, s.keys)
            ]
        else:
            tables[""].append(_row(name, value, s))
    return [(table, rows) for table, rows in tables.items() if rows]


def _row(name: str, value: Any, s: Setting) -> tuple[str, str, str]:
    if s.example:
        return name, f"(none; e.g. {s.example})", s.comment
    if isinstance(value, int | float) and not isinstance(value, bool) and s.scale != 1:
        value //= s.scale
    return name, toml_value(value), s.comment


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


# ------------------------------------------------------------------ results.json


def results() -> str:
    schema = json.loads(
        resources.files("grader.schemas").joinpath("results.schema.json").read_text("utf-8")
    )
    lines = [
        "# results.json",
        "",
        f"{schema.get('description', '')} Generated from its JSON schema,",
        "`grader/schemas/results.schema.json`, which every run's file is checked against.",
        "`[]` marks the items of a list.",
        "",
        "| field | type | required | what it holds |",
        "|---|---|---|---|",
    ]
    for path, node, required in fields(schema):
        lines.append(
            f"| `{path}` | {_cell(_type(node))} | {'yes' if required else ''} | "
            f"{_cell(node.get('description', ''))} |"
        )
    return "\n".join(lines) + "\n"


def fields(node: dict, path: str = "") -> Iterator[tuple[str, dict, bool]]:
    """(dotted path, its schema, required) of every named field below `node`."""
    required = set(node.get("required", ()))
    for name, child in node.get("properties", {}).items():
        here = f"{path}.{name}" if path else name
        yield here, child, name in required
        yield from fields(child, here)
        items = child.get("items")
        if isinstance(items, dict):
            yield from fields(items, here + "[]")


def _type(node: dict) -> str:
    if "enum" in node:
        return " or ".join(json.dumps(value) for value in node["enum"])
    kind = node.get("type", "any")
    kinds = kind if isinstance(kind, list) else [kind]
    if "array" in kinds and isinstance(node.get("items"), dict):
        inner = node["items"].get("type", "any")
        kinds = [f"array of {inner}" if k == "array" else k for k in kinds]
    return " or ".join(kinds)
