"""What a program does wrong, read from every run it made: the relation between what it
printed and what it had to print that explains every failing run and contradicts no
passing one.

Each relation is a general statement about a program's output against the expected one,
tested on all its runs (public cases, probes, hidden cases and the runs made to prove a
claim): a cap on the number of boards it prints (always min(expected, K)), boards merged
that differ only in their tile numbers, edges matched that the rules do not match, "no
solution" said exactly where an edge has no partner on another tile, one exception at
one line of its source. None is a rule about one mistake: each is learnt from the runs,
and is said only when the runs show it (every failing run it claims is explained by it,
no run contradicts it). Where no relation explains the runs, nothing is said beyond the
symptoms.

Nothing of a hidden case reaches the words: a relation is told by what the program did
(its cap, its exception and its own source line), and shown on a run a student may see
when there is one; letters and counts are quoted only from such runs.
"""

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from grader.cases.manifest import Case
from grader.cases.pool import properties
from grader.cases.puzzle import (
    PrintedOutput,
    PuzzleFormatError,
    Tile,
    all_turns,
    board_of,
    canonical_key,
    clashes,
    foreign_cells,
    parse_output,
    parse_puzzle,
    repeated_tiles,
)
from grader.core import verdicts
from grader.core.model import Verdict
from grader.intake.submissions import Submission
from grader.judge.judging import crash_site
from grader.store import FindingRow, Store, replayed

MAX_READ = 4 << 20  # bytes of an output the relations read (a longer one: no evidence)


@dataclass(frozen=True)
class Observed:
    """One run of a program, as the relations read it."""

    puzzle: Case  # a case, a pool puzzle, or a proof's puzzle
    visible: bool  # a student may see this run (a public case or probe, unexposed)
    verdict: Verdict
    expected: bytes
    output: bytes  # what it printed (an accepted run: the expected output)
    stderr: str = ""
    language: str = ""


# A relation the runs show: its kind ("cap", "merged-by-edges", "unmatched-edges",
# "no-partner", "crash"), its text for the student (nothing of a hidden case), the
# puzzles (ids) of the failing runs it explains, a visible puzzle where it shows.
Finding = FindingRow


@dataclass
class _Run:
    """An observed run with its outputs read (once)."""

    seen: Observed
    tiles: tuple[Tile, ...] | None
    expected: PrintedOutput
    printed: PrintedOutput
    want: frozenset[str] = field(default_factory=frozenset)  # canonical keys expected
    got: frozenset[str] = field(default_factory=frozenset)  # canonical keys printed
    shared: bool = False  # two expected boards have the same edges, other tile numbers

    @property
    def id(self) -> str:
        return self.seen.puzzle.id

    @property
    def failed(self) -> bool:
        return self.seen.verdict is not Verdict.AC

    @property
    def finished(self) -> bool:
        """It ran to its end and all it printed was read: its output is evidence."""
        return self.seen.verdict in verdicts.FINISHED and len(self.seen.output) <= MAX_READ


class Readings:
    """What the expected outputs say, read once for every program of a class: the same
    case's expected output is the same for all of them."""

    def __init__(self) -> None:
        self._expected: dict[tuple[str, str], tuple[PrintedOutput, frozenset[str]]] = {}
        self._tiles: dict[tuple[str, str], tuple[Tile, ...] | None] = {}
        self._bytes: dict[tuple[str, str], bytes] = {}
        self._flags: dict[tuple[str, str], bool] = {}

    def data(self, case: Case) -> bytes:
        """The case's expected output, as its file holds it."""
        key = (case.id, case.version)
        if key not in self._bytes:
            self._bytes[key] = case.expected.read_bytes()
        return self._bytes[key]

    def expected(self, seen: Observed) -> tuple[PrintedOutput, frozenset[str]]:
        key = (seen.puzzle.id, seen.puzzle.version)
        if key not in self._expected:
            out = parse_output(seen.expected[:MAX_READ].decode("utf-8", "replace"))
            self._expected[key] = (out, _keys(out))
        return self._expected[key]

    def shared_layouts(self, seen: Observed) -> bool:
        """Two of its expected boards have the same edges (other tile numbers)."""
        key = ("layouts", seen.puzzle.id + "\0" + seen.puzzle.version)
        if key not in self._flags:
            _, want = self.expected(seen)
            layouts = [_layout(k) for k in want]
            self._flags[key] = len(set(layouts)) < len(layouts)
        return self._flags[key]

    def tiles(self, seen: Observed) -> tuple[Tile, ...] | None:
        key = (seen.puzzle.id, seen.puzzle.version)
        if key not in self._tiles:
            try:
                self._tiles[key] = parse_puzzle(seen.puzzle.input.read_bytes())
            except (OSError, PuzzleFormatError):
                self._tiles[key] = None
        return self._tiles[key]


def findings(
    observed: Sequence[Observed],
    *,
    provisional: bool = False,
    readings: Readings | None = None,
) -> list[Finding]:
    """Every relation the runs show, the one explaining the most failing runs first.
    `provisional`: also what one failing run alone suggests (a cap seen once), to guide
    the search for more runs, never to be told."""
    if all(seen.verdict is Verdict.AC for seen in observed):
        return []
    read = readings or Readings()
    runs = [_read(seen, read) for seen in observed]
    found = [
        finding
        for relation in RELATIONS
        if (finding := relation(runs, provisional)) is not None and finding.explains
    ]
    kept: list[Finding] = []
    for finding in sorted(found, key=lambda f: -len(f.explains)):
        # One that explains nothing another does not already is no finding of its own.
        if not any(set(finding.explains) <= set(other.explains) for other in kept):
            kept.append(finding)
    return kept


def _read(seen: Observed, read: Readings) -> "_Run":
    expected, want = read.expected(seen)
    shared = read.shared_layouts(seen)
    if seen.verdict is Verdict.AC:  # it printed the expected output, byte for byte
        return _Run(seen, read.tiles(seen), expected, expected, want, want, shared)
    if seen.verdict not in verdicts.FINISHED or len(seen.output) > MAX_READ:
        return _Run(seen, read.tiles(seen), expected, PrintedOutput(), want, frozenset(), shared)
    printed = parse_output(seen.output[:MAX_READ].decode("utf-8", "replace"))
    return _Run(seen, read.tiles(seen), expected, printed, want, _keys(printed, want), shared)


def _keys(out: PrintedOutput, canonical: frozenset[str] = frozenset()) -> frozenset[str]:
    """The boards' canonical keys (a key among `canonical` is one already)."""
    return frozenset(
        board.key if board.key in canonical else canonical_key(board.key) for board in out.boards
    )


def _shown_by(runs: Sequence["_Run"], explained: Sequence["_Run"]) -> str | None:
    """The visible run that shows the relation with the smallest expected output."""
    visible = [run for run in explained if run.seen.visible]
    if not visible:
        return None
    return min(visible, key=lambda run: (len(run.seen.expected), run.id)).id


def _finding(
    kind: str,
    text: str,
    runs: Sequence["_Run"],
    explained: Sequence["_Run"],
    cap: int | None = None,
) -> Finding | None:
    if not explained:
        return None
    ids = tuple(dict.fromkeys(run.id for run in explained))
    return Finding(kind, text, ids, _shown_by(runs, explained), cap)


# ------------------------------------------------------------------ a cap


def cap(runs: Sequence["_Run"], provisional: bool = False) -> Finding | None:
    """It prints min(expected, K) boards on every puzzle that ran to its end, for one K,
    and fewer than expected on two puzzles at least: a cap ("stops after the first"
    when K is 1). One puzzle cut short fits any K: a guess, `provisional` only."""
    finished = [run for run in runs if run.finished]
    short = [run for run in finished if len(run.got) < len(run.want)]
    caps = {len(run.got) for run in short}
    if len(caps) != 1 or (len({run.id for run in short}) < 2 and not provisional):
        return None
    (k,) = caps
    if k == 0:
        return None  # "no solution": another relation's
    for run in finished:
        if len(run.got) != min(len(run.want), k) or not run.got <= run.want:
            return None
    explained = [run for run in short if run.failed]
    if k == 1:
        text = (
            "your program stops after the first solution it finds: on every puzzle with "
            "more than one solution it prints only one board"
        )
    else:
        text = (
            f"your program never prints more than {k:,} solutions: on every puzzle with "
            f"more it prints {k:,} boards and leaves the others out (something in it "
            f"holds or counts at most {k:,})"
        )
    return _finding("cap", text, runs, explained, k)


# ------------------------------------------------------------------ boards merged


def _layout(key: str) -> str:
    """A board's edges alone, its tile numbers left out."""
    tokens = key.split(" ")
    return " ".join(token for token in tokens if not token.isdigit())


def merged_by_edges(runs: Sequence["_Run"], provisional: bool = False) -> Finding | None:
    """Boards missing from its output are exactly those that have the edges of a board
    it printed, with other tile numbers: it keeps one board per arrangement of edges."""
    explained = []
    for run in runs:
        if not run.finished:
            continue
        if not run.failed:
            if run.shared:
                return None  # it printed boards that share their edges: not merging them
            continue
        missing, extra = run.want - run.got, run.got - run.want
        if not missing or extra:
            continue
        printed = {_layout(key) for key in run.got}
        if all(_layout(key) in printed for key in missing):
            explained.append(run)
    text = (
        "your program prints one board for boards that differ only in their tile numbers: "
        "when two tiles are alike, the boards that swap them have the same edges, but they "
        "are different solutions and each is printed"
    )
    return _finding("merged-by-edges", text, runs, explained)


# ------------------------------------------------------------------ edges that do not match


def unmatched_edges(runs: Sequence["_Run"], provisional: bool = False) -> Finding | None:
    """Its extra boards place the puzzle's own tiles, each once, and every touching
    pair they get wrong is of one kind: a half against the same half, or two pictures
    that are not the same (the boards it then misses follow from the same rule)."""
    explained, pairs, visible_pairs = [], Counter[tuple[str, str]](), Counter[tuple[str, str]]()
    for run in runs:
        if not run.failed or not run.finished or run.tiles is None:
            continue
        extra = run.got - run.want
        if not extra:
            continue
        found = _clashing_pairs(run, extra)
        if found is None:
            continue
        explained.append(run)
        pairs.update(found)
        if run.seen.visible:
            visible_pairs.update(found)
    if not explained:
        return None
    same_half = all(a[0] == b[0] and a[1] == b[1] for a, b in pairs)
    other_picture = all(a[0] != b[0] for a, b in pairs)
    if same_half:
        text = (
            "your program lets a half meet the same half (a 0 next to a 0, or a 1 next to a "
            "1): the rules match only the two halves of one picture, a 0 with a 1"
        )
    elif other_picture:
        shown = ", ".join(f"{a} with {b}" for (a, b), _ in visible_pairs.most_common(4))
        text = (
            "your program matches edges of different pictures"
            + (f" ({shown})" if shown else "")
            + ": the rules match only the same letter, a 0 with a 1"
        )
    else:
        return None  # clashes of more than one kind: no one relation
    return _finding("unmatched-edges", text, runs, explained)


EXTRA_READ = 300  # extra boards of one run the relation reads (the first, in key order)


def _clashing_pairs(run: "_Run", extra: frozenset[str]) -> list[tuple[str, str]] | None:
    """The touching edges that do not match in its extra boards (up to EXTRA_READ of
    them), each board a placement of the puzzle's own tiles; None when one is not
    (another mistake)."""
    assert run.tiles is not None, "checked by the caller"
    turns = all_turns(run.tiles)
    found = []
    for key in sorted(extra)[:EXTRA_READ]:
        board = board_of(key)
        if foreign_cells(board, turns) or repeated_tiles(board):
            return None
        for clash in clashes(board):
            a = board[clash.first].edges[1 if clash.horizontal else 2]
            b = board[clash.second].edges[3 if clash.horizontal else 0]
            found.append((min(a, b), max(a, b)))
    return found or None


# ------------------------------------------------------------------ "no solution"


def _unpartnered(tiles: Sequence[Tile]) -> bool:
    """Some edge has no matching edge (same picture, other half) on another tile."""
    for index, tile in enumerate(tiles):
        others = {edge for j, other in enumerate(tiles) if j != index for edge in other}
        for edge in tile:
            if edge[0] + ("1" if edge[1] == "0" else "0") not in others:
                return True
    return False


def no_partner(runs: Sequence["_Run"], provisional: bool = False) -> Finding | None:
    """It says there is no solution exactly on the puzzles where an edge has no partner
    on another tile (and solves those where every edge has one)."""
    said_none = [
        run
        for run in runs
        if run.failed and run.finished and run.want and not run.got and run.printed.count == 0
    ]
    if not said_none or any(run.tiles is None for run in said_none):
        return None
    if not all(_unpartnered(run.tiles or ()) for run in said_none):
        return None
    solved = [run for run in runs if not run.failed and run.want and run.tiles is not None]
    if any(_unpartnered(run.tiles or ()) for run in solved):
        return None  # it solved such a puzzle: not what it does
    text = (
        "your program says there is no solution whenever some edge has no matching edge on "
        "another tile; but an edge on the outer border of the board touches nothing and "
        "needs no partner, so such a puzzle can still have solutions"
    )
    return _finding("no-partner", text, runs, said_none)


# ------------------------------------------------------------------ one crash


def crash(runs: Sequence["_Run"], provisional: bool = False) -> Finding | None:
    """Every crash of it is the same exception at the same line of its source."""
    crashed = [run for run in runs if run.seen.verdict is Verdict.RTE]
    sites = {crash_site(run.seen.stderr) for run in crashed}
    if len(sites) != 1 or None in sites:
        return None
    ((exception, where),) = sites  # type: ignore[misc]
    text = (
        f"your program stops with an uncaught {exception} at {where}, on every puzzle it crashes on"
    )
    if exception == "RecursionError":
        text += (
            ": each call there goes one level deeper, and Python stops at about 1,000 "
            "levels; do that work in a loop"
        )
    return _finding("crash", text, runs, crashed)


def likely(finding: Finding, puzzle: Case) -> bool:
    """The finding says the program fails this puzzle too: where to search first."""
    found = properties(puzzle)
    if finding.kind == "cap" and finding.cap is not None:
        return (found.solutions or 0) > finding.cap
    if finding.kind == "merged-by-edges":
        return found.duplicates and (found.solutions or 0) >= 2
    if finding.kind == "no-partner":
        try:
            return bool(found.solutions) and _unpartnered(parse_puzzle(puzzle.input.read_bytes()))
        except (OSError, PuzzleFormatError):
            return False
    return False


RELATIONS: tuple[Callable[[Sequence[_Run], bool], Finding | None], ...] = (
    cap,
    merged_by_edges,
    unmatched_edges,
    no_partner,
    crash,
)


def explained_by(found: Sequence[Finding]) -> dict[str, Finding]:
    """Each explained puzzle (by id) -> the first finding that explains it."""
    by_puzzle: dict[str, Finding] = {}
    for finding in found:
        for puzzle in finding.explains:
            by_puzzle.setdefault(puzzle, finding)
    return by_puzzle


def guesses(
    store: Store, sub: Submission, cases: Sequence[Case], pool: Sequence[Case]
) -> list[Finding]:
    """What the runs show or suggest, to choose which puzzles to run next."""
    try:
        read = Readings()
        return findings(
            observed_runs(store, sub, cases, pool, read), provisional=True, readings=read
        )
    except (RecursionError, MemoryError, ValueError, OSError):
        return []


def record(
    store: Store, submissions: Sequence[Submission], cases: Sequence[Case], pool: Sequence[Case]
) -> None:
    """Find and store what each submission's runs show (nothing runs here). Feedback,
    never a grade: an analysis that fails leaves this piece missing, the class goes on."""
    read = Readings()
    for sub in submissions:
        if sub.problem is not None:
            continue
        runs = store.runs(sub.id, sub.content_hash).values()
        if all(run.verdict in (Verdict.AC, Verdict.CE, Verdict.IE) for run in runs):
            store.record_findings(sub, [])  # nothing failed that a relation could explain
            continue
        try:
            found = findings(observed_runs(store, sub, cases, pool, read), readings=read)
        except (RecursionError, MemoryError, ValueError, OSError):
            found = []
        store.record_findings(sub, found)


def observed_runs(
    store: Store,
    sub: Submission,
    cases: Sequence[Case],
    pool: Sequence[Case],
    read: Readings | None = None,
) -> list[Observed]:
    """Every stored run of the submission's content on a current case or pool puzzle."""
    language = sub.language.name if sub.language else ""
    read = read or Readings()
    seen = []
    runs = store.runs(sub.id, sub.content_hash)
    for case in cases:
        run = runs.get((case.id, case.version))
        if run is None or run.verdict in (Verdict.CE, Verdict.IE):
            continue
        expected = read.data(case)
        visible = case.public and not run.exposed
        printed = (
            expected
            if run.verdict is Verdict.AC
            else store.output(sub.id, sub.content_hash, case.id, case.version) or b""
        )
        seen.append(Observed(case, visible, run.verdict, expected, printed, run.stderr, language))
    stored = store.pool_runs(sub.id, sub.content_hash)
    for puzzle in pool:
        pool_run = stored.get((puzzle.id, puzzle.version))
        if pool_run is None or pool_run.verdict in ("CE", "IE"):
            continue
        expected = read.data(puzzle)
        key = (sub.id, sub.content_hash, puzzle.id, puzzle.version)
        blob, output = store.replay("pool_runs", key)
        result = replayed(blob, output, expected)
        verdict = Verdict(pool_run.verdict)
        printed = expected if verdict is Verdict.AC else output
        stderr = result.stderr.decode("utf-8", "replace") if result else ""
        seen.append(
            Observed(puzzle, not pool_run.exposed, verdict, expected, printed, stderr, language)
        )
    return seen
