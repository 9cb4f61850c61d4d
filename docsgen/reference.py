"""The reference pages, generated from the code: every command and option (from the
argument parsers), every course.toml key (from grader/course/config.py's declarations), and
results.json's fields (from its JSON schema)."""

import argparse
import json
from collections.abc import Iterator
from importlib import resources
from typing import Any

from grader import cli as grader_cli
from grader.core.settings.declare import Setting
from grader.core.settings.show import default_text, tables
from grader.course.config import CourseConfig
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
        "`grader/course/config.py` (the same ones that read the file and write the project's",
        "`course.toml`). Every key is optional; an unknown key, a wrong type or a value",
        "out of range is refused with an error naming the key. `--course FILE` picks",
        "another file.",
        "",
    ]
    for table in tables(CourseConfig()):
        title = f"`[{table.name}]`" if table.name else "Top level"
        lines += [f"## {title}", "", "| key | default | what it does |", "|---|---|---|"]
        lines += [f"| `{key}` | `{_cell(_default(value, s))}` | {_cell(s.comment)} |"
                  for key, value, s in table.keys]  # fmt: skip
        lines.append("")
    return "\n".join(lines) + "\n"


def _default(value: Any, s: Setting) -> str:
    """The default as course.toml shows it."""
    if s.example:
        return f"(none; e.g. {s.example})"
    return default_text(value, s)


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


def fields(node: dict[str, Any], path: str = "") -> Iterator[tuple[str, dict[str, Any], bool]]:
    """(dotted path, its schema, required) of every named field below `node`."""
    required = set(node.get("required", ()))
    for name, child in node.get("properties", {}).items():
        here = f"{path}.{name}" if path else name
        yield here, child, name in required
        yield from fields(child, here)
        items = child.get("items")
        if isinstance(items, dict):
            yield from fields(items, here + "[]")


def _type(node: dict[str, Any]) -> str:
    if "enum" in node:
        return " or ".join(json.dumps(value) for value in node["enum"])
    kind = node.get("type", "any")
    kinds = kind if isinstance(kind, list) else [kind]
    if "array" in kinds and isinstance(node.get("items"), dict):
        inner = node["items"].get("type", "any")
        kinds = [f"array of {inner}" if k == "array" else k for k in kinds]
    return " or ".join(kinds)
