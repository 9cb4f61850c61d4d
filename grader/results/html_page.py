"""Every HTML page the grader writes (feedback pages and their index, the leaderboard,
the similarity report) is rendered from a Jinja2 template in grader/results/templates/,
with autoescaping on: whatever a student chose (a name, a file name, output, a build
log) is text in the page, never markup, whoever builds the context. Each page is one
self-contained file under the same Content-Security-Policy: no script, no request, no
external asset; styles inline and pictures as data: URLs or inline SVG."""

import functools
from typing import Any

import jinja2

from grader.core import verdicts
from grader.core.text import printable

# Styles inline, pictures as data: URLs, nothing else: a page works opened from disk
# and a student's name or output can never load or run anything.
CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
    "form-action 'none'"
)


# The signs of made-visible white space (grader.exports.feedback_html.tokens) -> the
# class that draws each (feedback.css).
MARKS = {"·": "space", "→": "tab", "↵": "eol"}


@functools.cache
def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("grader.results", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,  # a missing value is a bug, never an empty spot
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    environment.filters["printable"] = printable
    environment.globals["MARKS"] = MARKS
    environment.globals["VERDICT_COLOURS"] = verdicts.COLOURS  # each badge's
    return environment


def render(template: str, **context: Any) -> str:
    """The page `template` renders from `context` (every value escaped as it is put in)."""
    return _environment().get_template(template).render(csp=CSP, **context)
