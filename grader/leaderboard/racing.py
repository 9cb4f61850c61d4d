"""Racing: no time spent on a program that cannot rank 1 (as F-race does for
configurations). Pure decisions over the runs measured so far.

Only rank 1 carries the bonus. After its first `first_look` runs (the fewest with which
the session's rank test at its alpha can tell a program from a fully timed one), a
program stops being timed once the test shows it slower than every program of the
current rank-1 set, each of which has been timed fully first (the leaders are the
fast programs, so timing them fully costs little). It is ranked by the runs it has,
and the page says so. A program that may still tie for rank 1 is timed fully.

A language's start-up program (what only starting a program costs) is timed as far as
the programs of its language are: fully once one of them is timed beyond its first look,
and no further when none is (each was stopped, or failed): its figure is then of as
many runs as theirs, which is what it is compared with.

The same rules decide, from the stored runs alone, who was stopped (grader.leaderboard
.standings): a resumed session, or one measured in several sittings, reads them alike.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from grader.leaderboard.batches import CLOSE
from grader.statistics.timing import Rule, apart, median


@dataclass(frozen=True)
class Race:
    """The current rank-1 set, and the programs shown slower than every one of it."""

    leaders: frozenset[str]
    out: frozenset[str]


def first_look(runs: int, rule: Rule) -> int | None:
    """The fewest runs after which a program can be shown slower than one timed fully
    (`runs` runs) by the rule's test at its alpha; None when only all of them can (no
    racing)."""
    for k in range(1, runs):
        if rule.test.smallest_p_value(k, runs) < rule.alpha:
            return k
    return None


def decide(samples: Mapping[str, Sequence[float]], rule: Rule) -> Race:
    """The rank-1 set of `samples` (each program's totals so far), and the programs
    outside it that every program of it is significantly faster than.

    The rank-1 set is the programs no program is directly significantly faster than
    (a chain only adds wins over programs already beaten: grader.statistics.timing.ranks), found
    with the fewest tests for a class of hundreds: each program is tested against the
    faster ones, fastest first, until one beats it, and against the leaders only."""
    named = {name: list(values) for name, values in samples.items() if values}
    middle = {name: median(values) for name, values in named.items()}
    order = sorted(named, key=lambda name: (middle[name], name))
    leaders: list[str] = []
    beaten = []
    for index, name in enumerate(order):
        if any(_faster(named, middle, q, name, rule) for q in order[:index]):
            beaten.append(name)
        else:
            leaders.append(name)
    out = [name for name in beaten if all(_faster(named, middle, q, name, rule) for q in leaders)]
    return Race(frozenset(leaders), frozenset(out))


def stopped(samples: Mapping[str, Sequence[float]], runs: int, rule: Rule) -> frozenset[str]:
    """The incomplete programs (fewer than `runs` totals) the race stopped: shown slower
    than every program of the rank-1 set, each of which is completely timed; none while
    a leader is itself incomplete (nothing is settled then)."""
    race = decide(samples, rule)
    if any(len(samples[name]) < runs for name in race.leaders):
        return frozenset()
    return frozenset(name for name in race.out if len(samples[name]) < runs)


def startups_stopped(
    startups: Mapping[str, int],
    programs: Iterable[tuple[str, bool]],
    runs: int,
    rule: Rule,
) -> frozenset[str]:
    """The languages whose start-up program the race stopped: `startups` gives the runs
    every case has of each language's start-up (none failed), `programs` each program's
    language and whether it is timed no further (stopped by the race, or failed). A
    start-up with its first look made and not timed fully is stopped when every program
    of its language is."""
    look = first_look(runs, rule)
    done: dict[str, bool] = {}
    for language, over in programs:
        done[language] = done.get(language, True) and over
    return frozenset(
        language
        for language, count in startups.items()
        if look is not None and look <= count < runs and done.get(language, False)
    )


def _faster(
    named: Mapping[str, Sequence[float]],
    middle: Mapping[str, float],
    fast: str,
    slow: str,
    rule: Rule,
) -> bool:
    """`fast` significantly faster than `slow` (grader.statistics.timing.Rule)."""
    return rule.faster(named[fast], named[slow], (middle[fast], middle[slow])) is not None


@dataclass(frozen=True)
class Step:
    """What the race does next: time leaders fully (`complete`, round-robin), or stop
    programs (`stop`) and give others their next run (`round`: the run index and who),
    or end (`round` None)."""

    complete: tuple[str, ...] = ()
    stop: tuple[str, ...] = ()
    round: tuple[int, tuple[str, ...]] | None = None


def next_step(
    samples: Mapping[str, Sequence[float]],
    following: Mapping[str, int],
    runs: int,
    rule: Rule,
) -> Step:
    """The race's next step, from the runs of the programs still racing (`samples`) and
    the next run index of each (`following`; `runs` once timed fully). While no leader
    is timed fully, the one with the lowest median is, with every leader `close_to`
    it (most of them are timed fully anyway), and no other: few runs against few
    cannot reach alpha, and against it the test can tell who may still tie. Then
    every leader not timed fully yet is. Those timed fully together are timed
    round-robin, as the exhaustive session times them: a drift of the machine's speed
    hits them alike, where a burst of one program's runs (a virtual machine's core runs
    half as fast again for a while) would put the drift into its figures alone, and
    could rank it apart from its identical copies."""
    race = decide(samples, rule)
    behind = [name for name in samples if name in race.leaders and following[name] < runs]
    if behind and len(behind) == len(race.leaders):
        middle = {name: median(samples[name]) for name in behind}
        best = min(behind, key=lambda name: (middle[name], name))
        return Step(
            complete=tuple(
                name
                for name in behind
                if name == best or close_to(samples[best], samples[name], rule)
            )
        )
    if behind:
        return Step(complete=tuple(behind))
    stop = tuple(sorted(name for name in race.out if following[name] < runs))
    rest = [name for name in samples if name not in stop and following[name] < runs]
    if not rest:
        return Step(stop=stop)
    index = min(following[name] for name in rest)
    return Step(stop=stop, round=(index, tuple(n for n in rest if following[n] == index)))


def close_to(best: Sequence[float], other: Sequence[float], rule: Rule) -> bool:
    """Whether `other` is likely to be timed fully once `best` is: their medians are
    not `apart`, or within CLOSE of each other (a core's slow moments make the same
    work up to 1.6 times slower: a copy of the best whose first runs fell in such
    moments), or their runs overlap (other's fastest no slower than best's slowest).
    A guess that only decides when runs are made, never who is stopped: those timed
    with the best share its batches (grader.leaderboard.batches), where a program timed
    fully later runs in other moments than the best's."""
    return (
        not apart(median(best), median(other), rule.noise_floor)
        or median(other) <= CLOSE * median(best)
        or min(other) <= max(best)
    )


def stopped_note(timed_runs: int, runs: int) -> str:
    """What a page says of a program stopped early."""
    return f"timed {timed_runs} of {runs} runs: slower than every program ranked 1"
