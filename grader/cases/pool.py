"""The pool: public puzzles with their expected outputs, kept beside the public cases
(`pool/manifest.json` next to the case manifest; `testcases pool` makes it), and what a
puzzle is like, so that the search for a puzzle that fails like a case
(grader.grading.counterexamples) tries the most alike first.

A puzzle is described by what the hidden cases vary (its properties,
grader.cases.input_properties): how many solutions, CR LF line ends, a final newline, spaces,
letters beyond the hand-out's four colours, many letters, a symmetric tile, duplicate
tiles, ties (boards sharing a 9-digit string).
"""

from collections.abc import Sequence
from pathlib import Path

from grader.cases.input_properties import HAND_OUT_COLOURS, InputProperties, properties_of
from grader.cases.manifest import Case, load_cases

LARGE = 300  # solutions: as many as the timed cases have


def pool_manifest(cases_manifest: Path) -> Path:
    return Path(cases_manifest).parent / "pool" / "manifest.json"


def load_pool(cases_manifest: Path) -> list[Case]:
    """The pool beside `cases_manifest`'s cases (none when there is none), every puzzle
    public; a broken pool is a CaseError, as a broken case set is."""
    path = pool_manifest(cases_manifest)
    if not path.is_file():
        return []
    return [case for case in load_cases(path) if case.public]


class Likeness:
    """Puzzles ordered by how alike they are to a case; each case's features are read
    once (one per grading run: cases do not change while it runs)."""

    def __init__(self) -> None:
        self._features: dict[Case, frozenset[str]] = {}
        self._sizes: dict[Case, int] = {}

    def ranked(self, target: Case, candidates: Sequence[Case]) -> list[Case]:
        """`candidates` in the order to try them for `target`: the most alike first
        (the fewest features one has and the other lacks, solution counts the closer
        the better), then the smallest expected output (the easiest to read), then by
        id."""
        want = self.features(target)
        return sorted(
            candidates,
            key=lambda case: (_distance(want, self.features(case)), self.size(case), case.id),
        )

    def features(self, case: Case) -> frozenset[str]:
        if case not in self._features:
            self._features[case] = features(case)
        return self._features[case]

    def size(self, case: Case) -> int:
        if case not in self._sizes:
            try:
                self._sizes[case] = case.expected.stat().st_size
            except OSError:
                self._sizes[case] = 0
        return self._sizes[case]


SOLUTION_BUCKETS = ("None", "0", "1", "2", "several", "many", "large")


def _distance(a: frozenset[str], b: frozenset[str]) -> int:
    """Features one has and the other lacks, the solution counts by how far apart."""
    other = len({f for f in a ^ b if not f.startswith("solutions:")})
    return other + abs(_bucket_index(a) - _bucket_index(b))


def _bucket_index(found: frozenset[str]) -> int:
    bucket = next((f for f in found if f.startswith("solutions:")), "solutions:None")
    return SOLUTION_BUCKETS.index(bucket.split(":", 1)[1])


def features(case: Case) -> frozenset[str]:
    """What the puzzle and its expected output are like (its properties, as data)."""
    found = properties(case)
    return frozenset(
        name
        for name, present in (
            (f"solutions:{_bucket(found.solutions)}", True),
            ("crlf", found.line_ends not in ("LF", "none")),
            ("no-final-newline", not found.final_newline),
            ("spaces", found.trailing_spaces or found.spaces_in_lines or found.blank_lines),
            ("bom", found.bom),
            ("ties", "tie-order" in case.policy),
            ("letters-beyond-four", found.other_letters),
            ("many-letters", found.letters > len(HAND_OUT_COLOURS)),
            ("symmetric", found.symmetric),
            ("duplicates", found.duplicates),
        )
        if present
    )


def properties(case: Case) -> InputProperties:
    """The case's properties: as loaded, or read from its files (a Case made by hand)."""
    if case.properties is not None:
        return case.properties
    return properties_of(_read(case.input), _read(case.expected))


def _bucket(solutions: int | None) -> str:
    if solutions is None or solutions < 3:
        return str(solutions)
    if solutions < 10:
        return "several"
    return "many" if solutions < LARGE else "large"


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""
