"""grader.core.text: what a program printed, made safe to show, and long text cut to fit.
Every report, export and page shows untrusted text through these four functions."""

import pytest

from grader.core.text import cut, printable, safe_name, shorten

pytestmark = pytest.mark.fast


@pytest.mark.parametrize(
    "data, shown",
    [
        (b"plain text\n\tindented", "plain text\n\tindented"),  # newline and tab stay
        (b"\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),  # no terminal colours or cursor moves
        (b"a\x00b\rc\x7fd", "a\\x00b\\x0dc\\x7fd"),  # NUL, CR, DEL
        ("C1 \x9b2J".encode(), "C1 \\x9b2J"),  # the one-character CSI
        ("rtl \u202eevil\u2066".encode(), "rtl \\u202eevil\\u2066"),  # bidi: Trojan Source
        (b"bad \xff\xfe utf-8", "bad \\xff\\xfe utf-8"),  # not UTF-8: escaped, never fails
        ("caf\u00e9 \u2713", "caf\u00e9 \u2713"),  # text stays text
        ("caf\udce9", "caf\\xe9"),  # a name's byte that is not UTF-8, as Python holds it
    ],
)
def test_printable_escapes_what_could_drive_a_terminal(data, shown):
    assert printable(data) == shown


@pytest.mark.parametrize(
    "name, shown",
    [
        ("alice", "alice"),
        (b"caf\xc3\xa9", "caf\u00e9"),
        (b"bad\xffname", "bad\\xffname"),  # a folder name that is not UTF-8
        ("new\nline\x1b", "new\nline\\x1b"),
    ],
)
def test_safe_name(name, shown):
    assert safe_name(name) == shown


@pytest.mark.parametrize(
    "text, limit, shown",
    [
        ("short", 5, "short"),
        ("longer", 5, "longe\n... (1 more character cut)"),
        ("x" * 2005, 5, "xxxxx\n... (2,000 more characters cut)"),
        ("", 0, ""),
    ],
)
def test_cut_says_how_much_was_cut(text, limit, shown):
    assert cut(text, limit) == shown


@pytest.mark.parametrize(
    "text, width, shown",
    [
        ("ok", 2, "ok"),
        ("abc", 2, "a…"),
        ("CE: x.c:3: error\nmore lines", 40, "CE: x.c:3: error"),  # the first line only
        ("", 10, ""),
    ],
)
def test_shorten_keeps_one_line_within_the_width(text, width, shown):
    assert shorten(text, width) == shown
