"""Text from untrusted programs, made safe to show in a terminal or a page."""

import os
import re

# C0 (but tab and newline), DEL, C1, and the bidirectional controls, which reorder
# what a terminal or a browser shows ("Trojan Source").
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(data, limit: int = 0) -> str:
    """Decode bytes leniently and escape control characters (ANSI escapes,
    NUL, CR, ...) so nothing a program printed can drive a terminal.
    Newlines and tabs stay; `limit` > 0 cuts the result to that many chars."""
    text = data.decode("utf-8", "backslashreplace") if isinstance(data, bytes) else data
    if limit and len(text) > limit:
        text = text[:limit] + f"... ({len(text) - limit:,} more characters)"
    return _CONTROL.sub(_escape, text)


def _escape(match: "re.Match") -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def safe_name(name) -> str:
    """A file or folder name (str or bytes) as text every output can hold: bytes
    that are not UTF-8 become \\xNN, control characters are escaped."""
    raw = name if isinstance(name, bytes) else os.fsencode(str(name))
    return printable(raw.decode("utf-8", "backslashreplace"))
