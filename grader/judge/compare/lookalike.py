"""Characters that look like the ASCII the output needs but are not."""

import re
import unicodedata

from grader.judge.compare.lines import quote
from grader.judge.compare.ranking import Issue, Rank

_NOT_ASCII = re.compile(r"[^\x00-\x7f]")
# Letters of other scripts drawn like the Latin letters and digits the output uses
# (NFKC already maps fullwidth forms and the like to ASCII).
_CONFUSABLE = {
    "А": "A",
    "В": "B",
    "Е": "E",
    "К": "K",
    "М": "M",
    "Н": "H",
    "О": "O",
    "Р": "P",
    "С": "C",
    "Т": "T",
    "Х": "X",
    "а": "a",
    "е": "e",
    "о": "o",
    "р": "p",
    "с": "c",
    "у": "y",
    "х": "x",
    "і": "i",
    "І": "I",
    "ѕ": "s",
    "Ѕ": "S",
    "ј": "j",
    "Ј": "J",
    "Α": "A",
    "Β": "B",
    "Ε": "E",
    "Ζ": "Z",
    "Η": "H",
    "Ι": "I",
    "Κ": "K",
    "Μ": "M",
    "Ν": "N",
    "Ο": "O",
    "Ρ": "P",
    "Τ": "T",
    "Υ": "Y",
    "Χ": "X",
    "ο": "o",
    "ν": "v",
    "\u2212": "-",
    "\u2010": "-",
    "\u2011": "-",
    "\u2013": "-",
    "\u00a0": " ",
}


def lookalike_issues(expected: bytes, got: bytes) -> list[Issue]:
    """Characters that look like the ASCII the output needs but are not: fullwidth
    digits, a Cyrillic or Greek letter, a combining mark. Named as such, so that
    nobody hunts for a wrong tile or spacing that is not there."""
    if not expected.isascii() or got.isascii():
        return []
    text = got.decode(errors="replace")
    found = _NOT_ASCII.search(text)
    if found is None:
        return []
    char = found.group()
    line = text.count("\n", 0, found.start()) + 1
    total = len(_NOT_ASCII.findall(text, 0, min(len(text), 1 << 20)))
    more = f" ({total:,} characters that are not ASCII in all)" if total > 1 else ""
    return [
        Issue(
            Rank.LOOKALIKE,
            f"line {line} contains {_describe(char, text, found.start())}; the "
            f"output must use plain ASCII characters only{more}",
        )
    ]


def _describe(char: str, text: str, at: int) -> str:
    code = f"U+{ord(char):04X} {unicodedata.name(char, 'an unnamed character')}"
    if unicodedata.combining(char):
        base = text[at - 1] if at else ""
        return (
            f"a combining mark {code} on {quote(base)}: it draws over the character "
            "before it and is a character of its own"
        )
    if char == "\ufffd":
        return "bytes that are not UTF-8 text"
    plain = _CONFUSABLE.get(char) or unicodedata.normalize("NFKC", char)
    if plain.isascii() and plain.strip() and plain != char:
        return f"the look-alike character {quote(char)} ({code}) where {quote(plain)} belongs"
    if plain.isascii() and plain != char:
        return f"the look-alike white space {code} where a plain space belongs"
    return f"the character {quote(char)} ({code}), which is not ASCII"
