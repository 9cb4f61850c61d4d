"""Publishing: the leaderboard's three files (JSON, Markdown, a self-contained HTML page)
in the results folder, and the private pseudonym key when names are hidden."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.core.atomic import write_file
from grader.leaderboard.names import write_pseudonym_key
from grader.leaderboard.page_html import html_page
from grader.leaderboard.page_md import markdown
from grader.results.results_json import write_json


@dataclass(frozen=True)
class Published:
    json: Path
    markdown: Path
    html: Path
    key: Path | None = None  # pseudonym -> id: private, never published


def publish(
    doc: dict[str, Any],
    folder: Path,
    ids: Sequence[str] = (),
    name: Callable[[str], str] | None = None,
) -> Published:
    """Write the document's three public files; with `name` (pseudonyms), also the
    instructor's key from pseudonym to each of `ids`."""
    made = Published(
        folder / "leaderboard.json", folder / "leaderboard.md", folder / "leaderboard.html"
    )
    write_json(doc, made.json, "leaderboard")
    write_file(made.markdown, markdown(doc))
    write_file(made.html, html_page(doc))
    if name is None:
        return made
    return Published(made.json, made.markdown, made.html, write_pseudonym_key(folder, ids, name))
