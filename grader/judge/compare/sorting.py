"""The printed boards sorted into what they are: not solutions, solutions found
(by canonical key), and the order the expected ones came in."""

from dataclasses import dataclass, field

from grader.cases.puzzle import (
    Key,
    PrintedBoard,
    PrintedOutput,
    Tile,
    all_turns,
    canonical_key,
    is_solution_key,
)


@dataclass
class Seen:
    """The printed boards sorted into what they are."""

    invalid: list[PrintedBoard] = field(default_factory=list)  # not solutions
    found: dict[Key, list[PrintedBoard]] = field(default_factory=dict)  # canonical key -> printed
    order: list[tuple[int, PrintedBoard]] = field(default_factory=list)  # expected index, printed


def sort_boards(out: PrintedOutput, tiles: tuple[Tile, ...] | None, where: dict[Key, int]) -> Seen:
    """A board equal to an expected one is a solution as printed; only the
    others are checked, so a long, mostly right output stays fast."""
    seen = Seen()
    turns = all_turns(tiles) if tiles else None
    for printed in out.boards:
        key = printed.key
        if key not in where:
            if not is_solution_key(key, turns):
                seen.invalid.append(printed)
                continue
            key = canonical_key(key)
        copies = seen.found.setdefault(key, [])
        copies.append(printed)
        if len(copies) == 1 and key in where:
            seen.order.append((where[key], printed))
    return seen
