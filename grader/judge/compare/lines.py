"""Output shown inside a diagnosis: safe for any terminal, white space made
visible, and where two outputs first differ."""

SHOWN_WIDTH = 100  # characters of a line shown in a diagnosis


def as_bytes(data: bytes | str | None) -> bytes:
    if data is None:
        return b""
    return data.encode(errors="surrogateescape") if isinstance(data, str) else bytes(data)


def show(text: bytes | str, limit: int = SHOWN_WIDTH, spaces: str = "·") -> str:
    """Text safe for any terminal, white space visible, cut to `limit` characters."""
    if isinstance(text, bytes):
        text = text.decode(errors="backslashreplace")
    out = []
    for char in text[:limit]:
        if char == " ":
            out.append(spaces)
        elif char == "\t":
            out.append("→")
        elif 0xDC80 <= ord(char) <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
            out.append(f"\\x{ord(char) - 0xDC00:02x}")
        elif not char.isprintable():  # \r, \x.., \u.... or \U........, as Python writes them
            out.append(repr(char)[1:-1])
        else:
            out.append(char)
    return "".join(out) + ("…" if len(text) > limit else "")


def quote(text: str, limit: int = 60) -> str:
    """A short piece of output inside a sentence, in double quotes, made safe."""
    return '"' + show(text, limit, spaces=" ") + '"'


def first_difference(expected: bytes, got: bytes) -> list[str]:
    """Where the outputs first differ: line, column, both versions."""
    pos = _first_differing_byte(expected, got)
    newline = expected.rfind(b"\n", 0, pos)  # pragma: no mutate (a start of None is 0 too)
    start = newline + 1
    line_no = line_at(expected, start)
    column = pos - start
    return [
        f"first difference at line {line_no}, column {column + 1}:",
        "  expected: "
        + _show_line(expected, start, column, "(nothing: the expected output ends here)"),
        "  got:      " + _show_line(got, start, column, "(missing: output ended)"),
    ]


def line_at(data: bytes, offset: int) -> int:
    """The number (from 1) of the line that holds data[offset]."""
    before = data.count(b"\n", 0, offset)  # pragma: no mutate (a start of None is 0 too)
    return before + 1


def _first_differing_byte(a: bytes, b: bytes) -> int:
    """Index of the first byte where a and b differ (or the shorter one's length)."""
    size = min(len(a), len(b))
    # Any first step and any shrinking that ends at 1 find the same byte; these two
    # lines set only the speed, so they are not mutated.
    step, pos = 1 << 16, 0  # pragma: no mutate
    while step:
        while pos + step <= size and a[pos : pos + step] == b[pos : pos + step]:
            pos += step
        step //= 2  # pragma: no mutate
    return pos


def _show_line(data: bytes, start: int, column: int, when_absent: str) -> str:
    if start >= len(data):
        return when_absent
    end = data.find(b"\n", start)
    content = data[start:] if end < 0 else data[start:end]
    left = max(0, min(column - SHOWN_WIDTH // 2, len(content) - SHOWN_WIDTH))
    shown = ("…" if left else "") + show(content[left:])
    return shown + ("↵" if end >= 0 else "  (no newline at the end of the output)")
