"""What the whole output is to the expected output, when that alone explains the
difference: the start of it, cut off (at a whole number of buffer blocks: the rest was
never flushed); all of it, then more; every line of it, in another order (two output
streams with buffers of their own). Such a relation is the first thing told, and the
symptoms it explains (missing boards, stray lines, white space at the cut) are not."""

import re
from collections import Counter

from grader.judge.compare.lines import line_at, quote
from grader.judge.compare.ranking import Issue, Rank

BLOCK = 512  # the smallest buffer a runtime flushes in whole: 512, 1024, 4096, 8192...
# What a board is drawn with, and bytes that are not text: more of either at the end is
# told by the boards' and the characters' own issues.
_BOARD_OR_CONTROL = re.compile(rb"[|+]|[\x00-\x08\x0b-\x1f\x7f]")
LISTING_LINES = 10  # "Input tiles:" and the nine tiles


def relation_issues(expected: bytes, got: bytes) -> list[Issue]:
    """The one issue that explains the whole difference, or none. A cut at the end of a
    line (the last board missing, say) and more boards at the end are the boards' own
    issues: only a cut within a line or at a buffer's size, and lines after the output
    that are text and no part of a board, are told so."""
    if 0 < len(got) < len(expected) and expected.startswith(got):
        if not got.endswith(b"\n") or _block(len(got)):
            return [Issue(Rank.TRUNCATED, _cut(expected, got))]
        return []
    if len(got) > len(expected) > 0 and got.startswith(expected) and expected.endswith(b"\n"):
        extra = got[len(expected) :]
        if not _BOARD_OR_CONTROL.search(extra):
            return [Issue(Rank.TRAILING, _after(expected, got))]
        return []
    moved = _moved(expected, got)
    return [Issue(Rank.REORDERED, moved)] if moved else []


def _cut(expected: bytes, got: bytes) -> str:
    size = len(got)
    said = (
        f"the output stops after {size:,} bytes, at line {line_at(expected, size)} of the "
        f"expected output, which goes on for {len(expected) - size:,} more bytes: everything "
        "printed is right, up to there"
    )
    block = _block(size)
    if not block:
        return said
    return (
        f"{said}. {size:,} is a whole number of {block:,}-byte blocks, the size of an "
        "output buffer: the rest was still in the program's buffer when it ended, and "
        "was never written. A program that ends without flushing its output loses it "
        "(C's _exit, Python's os._exit, Java's System.exit before a writer is flushed "
        "or closed, a crash): let main return, or flush the output before ending"
    )


def _block(size: int) -> int:
    """The largest power of two (from BLOCK to 64 KiB) that `size` is a multiple of."""
    block = 0
    step = BLOCK
    while step <= 1 << 16 and size % step == 0:
        block, step = step, step * 2
    return block


def _after(expected: bytes, got: bytes) -> str:
    extra = got[len(expected) :]
    count = extra.count(b"\n") + (not extra.endswith(b"\n"))  # no line objects: it may be huge
    lines = "line follows" if count == 1 else "lines follow"
    first = re.search(rb"[^\s][^\n]*", extra[:4096])
    shown = first.group(0).decode(errors="replace") if first else ""
    return (
        f"the whole expected output is there, and then {count:,} more {lines} it, "
        f"starting with {quote(shown)}: print nothing after the last board"
    )


def _moved(expected: bytes, got: bytes) -> str:
    """Every line there, in another order, the tile listing out of its place first (a
    count line or boards alone out of place are their own issues)."""
    if len(got) != len(expected):  # the same lines in another order: the same bytes
        return ""
    want = expected.decode(errors="replace").split("\n")
    have = got.decode(errors="replace").split("\n")
    if want == have or Counter(want) != Counter(have):
        return ""
    header = "Input tiles:"
    if header in want and header in have and have.index(header) != want.index(header):
        where = have.index(header) + 1
        return (
            f'every expected line is there, in another order: the tile listing ("{header}" '
            f"and the nine tiles) is line {where} of the output, not line 1. " + STREAMS
        )
    return ""


STREAMS = (
    "Output written through two streams that each have a buffer of their own (C's "
    "printf and C++'s cout after sync_with_stdio(false), System.out and a writer over "
    "it, Python's print and sys.stdout.buffer) reaches the output in the order the "
    "buffers are flushed, not in the order it was written: print everything through "
    "one stream"
)
