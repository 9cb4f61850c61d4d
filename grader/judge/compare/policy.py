"""Whether a failure is decided only by the case's policy rules: the output is what a
program taking the other reasonable reading of those rules prints, and wrong in
nothing else.

The rules (grader.cases.manifest.POLICY_RULES) and the other reading of each:
- symmetric-tiles: placements of a symmetric tile that draw alike are as many
  solutions, so a board is printed once per such placement, the copies one after the
  other, and the count line counts every board printed;
- tie-order: boards with the same 9-digit string come in another order.
Decided on the whole output, byte for byte, never on the issues a diagnosis shows:
with the copies of look-alike boards dropped and the ties put in the rule's order,
the output must be the expected one, except for a count line that counts the copies.
Anything else (another count line, the listing, a board missing, extra, drawn
otherwise or printed more often than it has look-alike placements, white space)
makes the failure the program's own.
"""

import math
import re
from collections.abc import Sequence
from itertools import groupby

from grader.cases.puzzle import SEPARATOR, parse_output, turn

_SEPARATOR = SEPARATOR.encode() + b"\n"
# A board as printed, with the line before it: empty between two boards, the count
# line's end before the first one. Drawings are 13 lines as wide as the separator.
_BOARD_BYTES = 1 + 13 * len(_SEPARATOR)
_TILE_NUMBER = re.compile(rb"\|(\d+) ")  # a cell's first line starts with its tile's number


def decided_by_policy(expected: bytes, got: bytes, policy: Sequence[str]) -> bool:
    """Whether `got`, an output that differs from `expected`, is right under the other
    reading of the case's policy rules and wrong in nothing else."""
    want_head, want = _split(expected)
    head, printed = _split(got)
    boards = printed
    if "tie-order" in policy:
        boards = _ties_in_drawn_order(boards)
    if "symmetric-tiles" in policy:
        boards = _lookalikes_once(boards)
    if boards != want:
        return False
    if len(boards) == len(printed):
        return head == want_head
    return head == _counting(want_head, len(printed))


def _split(output: bytes) -> tuple[bytes, list[bytes]]:
    """The output's head (the listing and the count line) and its boards, each with the
    line ending before it. Cut by length: where they are not whole drawings, the pieces
    are no expected board's."""
    first = output.find(b"\n" + _SEPARATOR)
    if first == -1:
        return output, []
    body = output[first:]
    return output[: first + 1], [
        body[i : i + _BOARD_BYTES] for i in range(0, len(body), _BOARD_BYTES)
    ]


def _ties_in_drawn_order(boards: list[bytes]) -> list[bytes]:
    """Each run of boards with the same 9-digit string sorted by its drawn text."""
    return [board for _, tie in groupby(boards, key=_digits) for board in sorted(tie)]


def _digits(board: bytes) -> bytes:
    return b"".join(_TILE_NUMBER.findall(board))


def _lookalikes_once(boards: list[bytes]) -> list[bytes]:
    """Copies of a board printed one after the other, one per placement drawn alike,
    as one board; a board printed more often than that stays as printed."""
    kept = []
    for board, run in groupby(boards):
        copies = len(list(run))
        kept += [board] if copies == 1 or copies <= _drawn_alike(board) else [board] * copies
    return kept


def _drawn_alike(board: bytes) -> int:
    """How many placements of the tiles draw this board: a tile that looks the same
    turned by 180 degrees lies in two turns that draw alike, one that looks the same
    turned by 90 degrees in four."""
    read = parse_output(board.decode("ascii", "replace")).boards
    # Not mutated: a piece that is not a board is no expected board's copy, so what it
    # counts never matters.
    cells = read[0].board if read else ()  # pragma: no mutate
    return math.prod(sum(turn(cell.edges, k) == cell.edges for k in range(4)) for cell in cells)


def _counting(head: bytes, printed: int) -> bytes:
    """The expected head with a count line that counts every board printed (more than
    one: copies were printed)."""
    count_line = head.rfind(b"\n", 0, len(head) - 1) + 1
    return head[:count_line] + b"%d unique solutions found:\n" % printed
