"""Text from untrusted programs, made safe to show in a terminal or a page."""

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(data, limit: int = 0) -> str:
    """Decode bytes leniently and escape control characters (ANSI escapes,
    NUL, CR, ...) so nothing a program printed can drive a terminal.
    Newlines and tabs stay; `limit` > 0 cuts the result to that many chars."""
    text = data.decode("utf-8", "backslashreplace") if isinstance(data, bytes) else data
    if limit and len(text) > limit:
        text = text[:limit] + f"... ({len(text) - limit:,} more characters)"
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
