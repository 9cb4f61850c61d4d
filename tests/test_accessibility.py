"""Every kind of page the grader writes meets WCAG 2.1 AA: pa11y with both of its engines
(axe-core and HTML_CodeSniffer), standard WCAG2AA, in the Chromium the project installs
(a11y/check.js; `make setup` installs pa11y with npm, without a browser download), over
a student's page of a program whose output differs in white space only (thousands of
made-visible spaces), of a wrong answer and of a crash, the instructor's pages and
their index, the leaderboard and the similarity report: no error at all. And the
colours a checker cannot judge (a sign drawn by the style sheet, text inside the
plot's image) are computed here: at least 4.5:1 wherever they are drawn."""

import re
import shutil
from pathlib import Path

import pytest

from docsgen.browser import pa11y_errors
from grader.cli import main as grader_main
from grader.leaderboard.page_html import html_page, plot, plot_svg
from tests.helpers import CHROMIUM, ROOT
from tests.helpers import leaderboard_document as document
from tests.mistake_variants import case_subset

A11Y = ROOT / "a11y"
TEMPLATES = ROOT / "grader" / "results" / "templates"
SUBMISSIONS = ROOT / "submissions"


def errors_of(pages: list[Path]) -> dict[str, list[dict]]:
    """pa11y's errors on each page (a11y/check.js): {page name: errors}."""
    if not (A11Y / "node_modules" / "pa11y").is_dir() or shutil.which("node") is None:
        pytest.fail("pa11y is not installed: run `make setup` (node, npm, a11y/node_modules)")
    if CHROMIUM is None:
        pytest.fail("chromium is not installed: run `make setup`")
    found = pa11y_errors(pages, CHROMIUM)
    return {_name(Path(page["file"])): page["errors"] for page in found}


def _name(page: Path) -> str:
    return f"{page.parent.name}/{page.name}"


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> list[Path]:
    root = tmp_path_factory.mktemp("a11y")
    manifest = case_subset(root / "cases", ("sample", "many-solutions", "no-final-newline"))
    for name in ("ada-c", "trailing-spaces", "wrong-plural", "crash"):
        shutil.copytree(SUBMISSIONS / name, root / "class" / name)
    base = ["--manifest", str(manifest)]
    results = str(root / "results")
    assert grader_main([*base, "grade", str(root / "class"), "--results", results]) == 0
    for folder, extra in (("instructor", []), ("student", ["--student"])):
        command = ["export", "html", str(root / folder), "--results", results, *extra]
        assert grader_main([*base, *command]) == 0
    (root / "leaderboard.html").write_text(html_page(document()), encoding="utf-8")
    similarity = ["similarity", str(root / "similarity.html"), "--submissions"]
    assert grader_main([*similarity, str(root / "class")]) == 0
    return [
        root / "student" / "trailing-spaces.html",
        root / "student" / "wrong-plural.html",
        root / "student" / "crash.html",
        root / "instructor" / "trailing-spaces.html",
        root / "instructor" / "index.html",
        root / "leaderboard.html",
        root / "similarity.html",
    ]


@pytest.mark.slow
def test_every_kind_of_page_has_no_error_in_either_engine(pages):
    spaces = pages[0].read_text().count("·")
    assert spaces > 2000  # white space made visible, a sign for each space
    found = errors_of(pages)
    assert set(found) == {_name(p) for p in pages}
    for name, errors in found.items():
        summary = {(e["runner"], e["code"], e["context"][:60]) for e in errors}
        assert errors == [], f"{name}: {sorted(summary)[:5]}"


@pytest.mark.slow
def test_the_check_sees_an_error_where_there_is_one(tmp_path):
    """What the engines must report: text too pale, an image without a text alternative,
    a form field without a name."""
    page = tmp_path / "broken.html"
    page.write_text(
        '<!DOCTYPE html><html lang="en"><head><title>broken</title></head><body><main>'
        '<p style="color:#bbbbbb">pale</p><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">'
        '<input type="text"></main></body></html>'
    )
    codes = {(e["runner"], e["code"].split(".")[-1]) for e in errors_of([page])[_name(page)]}
    assert ("axe", "color-contrast") in codes and ("axe", "image-alt") in codes
    assert any(runner == "htmlcs" for runner, _ in codes)


# ------------------------------------------------------------------ colours


def luminance(colour: str) -> float:
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def colour_of(css: str, selector: str, prop: str) -> str:
    block = re.search(re.escape(selector) + r"\s*\{([^}]*)\}", css)
    assert block, selector
    return re.search(prop + r":\s*(#[0-9a-fA-F]{6})", block.group(1)).group(1)


def test_the_signs_of_white_space_are_legible_on_every_row():
    css = (TEMPLATES / "feedback.css").read_text()
    page = (TEMPLATES / "page.css").read_text()
    sign = colour_of(css, ".mark", "color")
    grounds = [
        "#ffffff",
        re.search(r"--soft:\s*(#[0-9a-f]{6})", page).group(1),
        colour_of(css, "tr.exp td.code", "background"),
        colour_of(css, "tr.got td.code", "background"),
        colour_of(css, "tr.exp td", "background"),
        colour_of(css, "tr.got td", "background"),
    ]
    for ground in grounds:
        assert contrast(sign, ground) >= 4.5, (sign, ground, contrast(sign, ground))


def test_the_plots_text_is_legible_on_its_paper_and_bands():
    css = (TEMPLATES / "plot.css").read_text()
    grounds = [colour_of(css, f".{name}", "fill") for name in ("paper", "startup", "floor")]
    texts = [colour_of(css, name, "fill") for name in ("text", ".axis text", "text.muted")]
    texts.append(colour_of(css, "text.clipped", "fill"))
    for text in texts:
        for ground in grounds:
            assert contrast(text, ground) >= 4.5, (text, ground, contrast(text, ground))
    svg = plot_svg(plot(document()))
    assert svg.startswith("<svg") and "<style>" in svg and "&lt;" in svg  # names escaped
