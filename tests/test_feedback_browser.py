"""Feedback pages: self-contained, escaped, student pages hiding hidden cases, and
loaded in headless Chromium (Debian package `chromium`): no console message at
all (the pages have no script), the DOM as written, and screenshots that are not
blank. Set FEEDBACK_SCREENSHOTS=DIR to keep the screenshots for a human to look at.
"""

import os
import shutil
from pathlib import Path
from urllib.parse import unquote

import pytest

from grader.cli import main as grader_main
from grader.exports.feedback_html import page_names, tokens
from grader.exports.textdiff import line_diff
from grader.results.html_page import CSP
from tests.helpers import (
    HIDDEN_IDS,
    WEIRD_ID,
    WINDOW,
    Page,
    console_messages,
    grade_class,
    needs_chromium,
    png_summary,
)
from tests.helpers import run_chromium as chromium


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    root = tmp_path_factory.mktemp("feedback")
    graded = grade_class(root)
    for folder, extra in (("instructor", []), ("student", ["--student"])):
        code = grader_main(
            [
                "--manifest",
                str(graded.manifest),
                "export",
                "html",
                str(root / folder),
                "--results",
                str(graded.results),
                *extra,
            ]
        )
        assert code == 0
    return root


def test_pages_are_self_contained_and_escape_everything(pages):
    files = sorted((pages / "instructor").glob("*.html")) + sorted(
        (pages / "student").glob("*.html")
    )
    assert len(files) == 7 + 6  # six submissions each, and the instructor's index
    for path in files:
        page = Page(path)
        assert b"\x00" not in page.raw
        names = {tag for tag, _ in page.tags}
        assert not names & {"script", "iframe", "object", "embed", "img", "form", "base"}, path
        for tag, attrs in page.tags:
            assert not [a for a in attrs if a.startswith("on")], (path, tag, attrs)
            assert "src" not in attrs, (path, tag)
            href = attrs.get("href")
            if href is not None:  # in-page anchors, sibling pages, the data: icon only
                assert (
                    href.startswith(("#case-", "#hidden-"))
                    or href == "data:,"
                    or ("/" not in href and ":" not in href and href.endswith(".html"))
                ), href
            if tag == "link":
                assert attrs == {"rel": "icon", "href": "data:,"}
        csp = [
            a["content"] for t, a in page.tags if a.get("http-equiv") == "Content-Security-Policy"
        ]
        assert csp == [CSP] and "default-src 'none'" in CSP


def test_hostile_output_is_shown_as_text(pages):
    page = Page(pages / "instructor" / "hostile.html")
    text = page.all_text
    assert "<script>document.title='pwned'</script>" in text  # shown, as text
    assert "</pre></td></table><img·src=x·onerror=" in text  # spaces shown as ·
    assert "\\xff" in text and "\\xfe" in text  # bytes that are not UTF-8
    assert "\\x00" in text and "\\x1b" in text  # NUL and ESC, as escapes
    assert "\\r" in text and "\\u202e" in text  # carriage return, right-to-left override
    assert "\u202e" not in text
    assert "document.title='stderr'" in text  # stderr shown too, escaped


def test_student_pages_show_a_hidden_case_only_by_its_verdict_and_a_public_puzzle(pages):
    for path in (pages / "student").glob("*.html"):
        raw = path.read_text()
        for hidden in HIDDEN_IDS:
            assert hidden not in raw, (path, hidden)
        assert "hidden case 1" in raw and "hidden case 2" in raw
    wrong = Page(pages / "student" / "wrong-plural.html").all_text
    assert "1 unique solution" in wrong  # the public failure is explained
    hostile = (pages / "student" / "hostile.html").read_text()
    assert hostile.count('<section class="case" id="case-') == 2  # the public failures
    # A hidden failure: its number, its verdict, and a public puzzle failing alike or why
    # there is none; nothing of the hidden case itself (its id is checked above).
    assert hostile.count('<section class="case" id="hidden-') == 2
    assert hostile.count("public puzzle") >= 2
    for number in (1, 2):  # each linked from its row of the table
        assert f'<a href="#hidden-{number}">hidden case {number}</a>' in hostile
    instructor = (pages / "instructor" / "hostile.html").read_text()
    assert instructor.count('<section class="case"') == 4
    assert all(hidden in instructor for hidden in HIDDEN_IDS)
    assert not (pages / "student" / "index.html").exists()


def test_failures_show_a_diff_with_white_space_visible(pages):
    page = (pages / "instructor" / "trailing-spaces.html").read_text()
    assert '<tr class="exp">' in page and '<tr class="got">' in page
    # the expected line ends at "+", the student's has two spaces more: signs in the line's
    # own text (a line of signs only is drawn by the style sheet)
    assert "+--------+↵</td>" in page and "+··↵</td>" in page
    assert '<td class="code"><span class="mark eol"></span></td>' in page  # an empty line
    built = Page(pages / "instructor" / "compile-error.html").all_text
    assert "Build failed" in built and "error:" in built  # the compiler's own words


def test_visible_white_space_and_diff_rows():
    assert tokens("a b\tc\r\n") == [
        ("", "a"),
        ("ws", "·"),
        ("", "b"),
        ("ws", "→"),
        ("", "c"),
        ("esc", "\\r"),
        ("eol", "↵"),
    ]
    assert tokens("<&>\udcff") == [("", "<&>"), ("esc", "\\xff")]
    diff = line_diff(b"a\nb\nc\n", b"a\nB\nc")  # one changed line, a missing final newline
    kinds = [(row.kind, row.expected_line, row.got_line) for row in diff.rows]
    assert kinds == [
        ("hunk", 1, 1),
        ("same", 1, 1),
        ("expected", 2, None),
        ("got", None, 2),
        ("expected", 3, None),
        ("got", None, 3),
    ]
    assert diff.first_difference == 2 and not diff.cut
    assert line_diff(b"x\n", b"x\n").rows == []
    long = line_diff(
        b"".join(b"%d\n" % i for i in range(10000)),
        b"".join(b"%d\n" % (i * (i % 2)) for i in range(10000)),
    )
    assert long.cut and len(long.rows) == 400 and long.first_difference == 3
    lines = [b"%d\n" % i for i in range(10000)]
    late = line_diff(b"".join(lines), b"".join(lines[:9800] + [b"changed\n"] + lines[9801:]))
    assert late.first_difference == 9801 and not late.cut  # compared to the end
    assert [(row.kind, row.expected_line, row.got_line) for row in late.rows[:6]] == [
        ("hunk", 9798, 9798),
        ("same", 9798, 9798),
        ("same", 9799, 9799),
        ("same", 9800, 9800),
        ("expected", 9801, None),
        ("got", None, 9801),
    ]
    early = line_diff(b"".join(lines), b"".join([b"changed\n"] + lines[1:]))
    assert early.cut and len(early.rows) == 6  # one change; the rest not compared


def test_index_links_every_page(pages):
    index = Page(pages / "instructor" / "index.html")
    links = [unquote(a["href"]) for tag, a in index.tags if tag == "a"]
    assert sorted(links) == sorted(
        p.name for p in (pages / "instructor").glob("*.html") if p.name != "index.html"
    )
    # A name with quotes, spaces and <> gets a plain file name (see page_stem).
    assert page_names([WEIRD_ID])[WEIRD_ID] in links
    assert WEIRD_ID in index.all_text


# ------------------------------------------------------------------ in a browser


@needs_chromium
def test_the_console_check_catches_errors(tmp_path):
    """The check below would see a page's errors: it sees these."""
    bad = tmp_path / "bad.html"
    bad.write_text(
        "<!DOCTYPE html><title>x</title><script>console.error('boom');undefinedFunction();</script>"
    )
    messages = console_messages(chromium(tmp_path, bad.as_uri(), "--dump-dom"))
    assert any("boom" in line for line in messages)
    assert any("undefinedFunction" in line for line in messages)


@needs_chromium
@pytest.mark.parametrize(
    "page, title",
    [
        ("instructor/index.html", "Feedback pages"),
        ("instructor/hostile.html", "Feedback: hostile"),
        ("instructor/trailing-spaces.html", "Feedback: trailing-spaces"),
        ("instructor/compile-error.html", "Feedback: compile-error"),
        ("student/wrong-plural.html", "Feedback: wrong-plural"),
        (f"student/{page_names([WEIRD_ID])[WEIRD_ID]}", f"Feedback: {WEIRD_ID}"),
    ],
)
def test_pages_in_headless_chromium(pages, tmp_path, page, title):
    path = pages / page
    dom = chromium(tmp_path, path.as_uri(), "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert console_messages(dom) == []
    # The DOM the browser built: the title as written (no script changed it), no
    # element the page did not declare.
    assert f"<title>{title.replace('<', '&lt;').replace('>', '&gt;')}</title>" in dom.stdout
    assert "<script" not in dom.stdout and "<img" not in dom.stdout
    shot = tmp_path / (path.stem + ".png")
    done = chromium(tmp_path, path.as_uri(), f"--screenshot={shot}")
    assert done.returncode == 0 and shot.exists(), done.stderr[-2000:]
    assert console_messages(done) == []
    width, height, distinct = png_summary(shot)
    assert (width, height) == WINDOW
    assert distinct > 50  # text, tables and colours, not a blank page
    keep = os.environ.get("FEEDBACK_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(keep) / page.replace("/", "-").replace(".html", ".png"))
