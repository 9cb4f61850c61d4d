"""Text from untrusted programs made safe to show in a terminal or a page, and
long text cut to fit."""

import os
import re
from typing import Any, TextIO

# C0 (but tab and newline), DEL, C1, and the bidirectional controls, which reorder
# what a terminal or a browser shows ("Trojan Source"); and lone surrogates, which no
# stream can write: a file name's bytes that are not UTF-8, as Python holds them.
_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def printable(data: str | bytes) -> str:
    """Decode bytes leniently and escape control characters (ANSI escapes,
    NUL, CR, ...) so nothing a program printed can drive a terminal.
    Newlines and tabs stay."""
    text = data.decode("utf-8", "backslashreplace") if isinstance(data, bytes) else data
    return _CONTROL.sub(_escape, text)


def _escape(match: "re.Match[str]") -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # os.fsdecode's stand-in for the byte code - 0xDC00
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


class PrintableStream:
    """A text stream (stdout, stderr) whose every write goes through printable(): a
    name, an output or a message of a student's, however it reaches a command's output,
    can never drive the terminal (clear the screen, write a hyperlink, hide a line)."""

    def __init__(self, stream: TextIO) -> None:
        self.unguarded = stream  # for a progress bar, which draws with \r itself

    def write(self, text: str) -> int:
        self.unguarded.write(printable(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.unguarded, name)


def cut(text: str, limit: int) -> str:
    """At most `limit` characters of a long text (a log, a diagnosis), and a last
    line saying how much was cut."""
    if len(text) <= limit:
        return text
    more = len(text) - limit
    return text[:limit] + f"\n... ({more:,} more character{'' if more == 1 else 's'} cut)"


def shorten(text: str, width: int) -> str:
    """The first line of `text` in at most `width` characters, for a table cell or a
    label: "…" marks a cut."""
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= width else line[: width - 1] + "…"


def safe_name(name: str | bytes | os.PathLike[str]) -> str:
    """A file or folder name (str or bytes) as text every output can hold: bytes
    that are not UTF-8 become \\xNN, control characters are escaped."""
    raw = name if isinstance(name, bytes) else os.fsencode(str(name))
    return printable(raw.decode("utf-8", "backslashreplace"))
