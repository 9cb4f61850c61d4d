"""A Moodle scale, and the instructor's map from the grader's scores to its items.

An assignment graded on a scale ("Not passed, Passed, Distinction") takes one of the
scale's items as its grade: Moodle's worksheet upload (mod/assign/feedback/offline/
locallib.php, process_import_grades) looks each cell up among the items
(make_menu_from_list: the scale split at commas, each item trimmed) and drops a row
whose cell is no item, a number included, without a word. The worksheet lists the
items in its "Scale" column (gradingtable.php col_scale: one per line, which the
download's format_text makes three spaces: "Not passed   Passed   Distinction").

`--scale-map "Not passed=0,Passed=50%,Distinction=100%"`: each item with the lowest
final score that earns it, in the grader's points or as a share of its maximum (`%`);
a score gets the item with the highest minimum it reaches. Every item named must be
one of the scale's, exactly as Moodle spells it.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass

from grader.core.errors import GraderError


class ScaleMapError(GraderError):
    """The map cannot be used; str() names the problem."""


@dataclass(frozen=True)
class Step:
    item: str
    minimum: float
    percent: bool  # minimum is a share of the grader's maximum, in percent


@dataclass(frozen=True)
class ScaleMap:
    steps: tuple[Step, ...]

    def item(self, score: float, maximum: float) -> str | None:
        """The item `score` (of `maximum`) earns; None when it reaches no minimum."""
        reached = [
            (step.minimum * maximum / 100 if step.percent else step.minimum, step.item)
            for step in self.steps
        ]
        earned = [(low, item) for low, item in reached if score >= low - 1e-9]
        return max(earned)[1] if earned else None

    def check(self, items: Sequence[str]) -> None:
        """Every item named is one of the scale's (else Moodle drops the row)."""
        unknown = [step.item for step in self.steps if step.item not in items]
        if unknown:
            raise ScaleMapError(
                f"--scale-map names {', '.join(map(repr, unknown))}, not an item of the "
                f"assignment's scale ({', '.join(map(repr, items))}): Moodle would drop "
                "those rows"
            )


def parse_scale_map(text: str) -> ScaleMap:
    steps = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        item, equals, low = part.rpartition("=")
        low = low.strip()
        percent = low.endswith("%")
        try:
            minimum = float(low.rstrip("%").strip())
        except ValueError:
            minimum = -1.0
        if not equals or not item.strip() or minimum < 0:
            raise ScaleMapError(
                f"--scale-map: {part!r} is not ITEM=MINIMUM (a score, or a share with %: "
                "'Passed=50%')"
            )
        steps.append(Step(item.strip(), minimum, percent))
    if not steps:
        raise ScaleMapError("--scale-map: no item (ITEM=MINIMUM, ...)")
    return ScaleMap(tuple(steps))


_BREAK = re.compile(
    r"\r\n|\n|\r| {3}"
)  # a line break, or the three spaces the download makes of it


def scale_items(cell: str) -> tuple[str, ...]:
    """The items of the worksheet's "Scale" cell, as Moodle trims them."""
    return tuple(item.strip() for item in _BREAK.split(cell) if item.strip())
