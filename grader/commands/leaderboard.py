"""`grader leaderboard`: time the programs that pass every case, rank them, and publish
the leaderboard files into the results folder (grader/leaderboard/ does the work)."""

import argparse
import contextlib
import dataclasses
import functools
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from grader.cases.manifest import default_manifest, load_cases
from grader.commands.console import warn, warn_waiting
from grader.commands.options import (
    add_results_option,
    add_sandbox_option,
    graded_results,
    grading_sandbox,
    with_sandbox_choice,
)
from grader.core.errors import UsageError
from grader.core.progress import Bar, progress
from grader.course.config import CourseConfig, load_config
from grader.store import DB_NAME, Store, results_folder

if TYPE_CHECKING:
    from grader.intake.teams import Teams
    from grader.leaderboard import Calibration, Session, TimingPlan
    from grader.leaderboard.measuring import Event, Place, PlaceEvent, Span, Timing
    from grader.leaderboard.on_workers import ClusterTiming
    from grader.leaderboard.places import WorkerPlaces
    from grader.leaderboard.quiet import Load, Looking
    from grader.results.bonus import Award
    from grader.sandbox.base import Sandbox


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    board = sub.add_parser(
        "leaderboard", help="time the programs that pass every case and rank them (instructors)"
    )
    add_results_option(board)
    board.add_argument(
        "--puzzles",
        type=Path,
        metavar="DRAW.json",
        required=True,
        help="the puzzles to time, drawn afresh for this session by `testcases draw` "
        "(one per timed case, from its family): answers learned from an earlier session's "
        "figures buy nothing",
    )
    board.add_argument(
        "--anonymize",
        action="store_true",
        help="show stable pseudonyms instead of submission names",
    )
    board.add_argument(
        "--force-remeasure",
        action="store_true",
        help="forget every stored timing and measure again",
    )
    board.add_argument(
        "--busy-ok",
        action="store_true",
        help="time even when the machine is busy (other work using its cores): by "
        "default the leaderboard refuses, since the bonus would go by that work's load",
    )
    board.add_argument(
        "--exhaustive",
        action="store_true",
        help="time every program fully, one run at a time on one core; by default every "
        "core whose speed agrees with the others' times at once, and a program whose runs "
        "show it slower than every program ranked 1 stops being timed (the rank-1 set, "
        "who gets the bonus, is timed fully either way)",
    )
    board.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="time on a Dask cluster's workers (its scheduler's address, tcp://host:8786, "
        "or local:N for N worker processes here): every agreeing core of every machine "
        "of the cluster, each surveyed first; by default this machine's cores",
    )
    add_sandbox_option(board)
    board.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # Imported when used: the other commands start without them.
    from grader import leaderboard as lb
    from grader.intake.teams import class_teams
    from grader.judge.score import report
    from grader.leaderboard.page_md import terminal
    from grader.results.bonus import award
    from grader.results.last_run import graded_ids

    looking = _start_look()  # over the whole preparation: the grader's own CPU not counted
    config = load_config(args.course)
    config = with_sandbox_choice(config, args)
    cases = load_cases(args.manifest or default_manifest())
    graded_results(args.results)
    lb.timed_cases(cases, config)  # a bad [leaderboard] cases is said before anything runs
    graded = graded_ids(args.results)  # the last grade run's submissions, not older ones
    with results_folder(args.results) as folder, Store(folder / DB_NAME) as store:
        draw = lb.load_draw(
            args.puzzles, folder / "leaderboard-draws", lb.timed_cases(cases, config)
        )
        rows = [row for row in store.submissions() if graded is None or row.id in graded]
        teams = class_teams(rows, config)  # a replaced submission, a copy, a test account: unranked
        said = None
        if args.force_remeasure:
            said = _say_if_busy(args.busy_ok, looking)  # before a stored timing is forgotten
            store.forget_timings()
        sandbox = grading_sandbox(config)
        session = lb.prepare(
            store,
            cases,
            config,
            sandbox,
            folder / "builds",
            only=graded,
            unranked=teams.unranked,
            draw=draw,
            build_here=not args.cluster,  # a cluster's workers build what they time
        )
        lb.check_draw_unused(store.session_of_draw(draw.digest), session.programs, args.puzzles)
        timed = _time(args, store, session, sandbox, config, looking, said)
        _say_timed(timed)
        standings = lb.collect(store, session, config)
        recorded = lb.record_session(store, standings)
        for caveat in lb.board_caveats(standings):
            warn(caveat)
        name = lb.pseudonyms(folder) if args.anonymize else None
        doc = lb.document(
            standings,
            _machine(store, session, sandbox, timed),
            name or (lambda sid: sid),
            anonymized=args.anonymize,
            exhaustive=args.exhaustive,
        )
        print(terminal(doc))
        _publish(doc, folder, store, name)
        reports = [report(store, row, cases, config.policy_cases) for row in rows]
        warn_waiting(reports)
        bonus = award(store, reports, teams, cases, config)
    print(
        f"session {recorded.id} recorded in {folder / DB_NAME} (puzzles drawn with seed "
        f"{draw.seed}): {bonus.note}"
    )
    _say_winners(bonus, teams)
    return 0


def _say_winners(bonus: "Award", teams: "Teams") -> None:
    """Each team the bonus goes to, with its members."""
    for winner in bonus.winners:
        team = teams.of(winner)
        members = ", ".join(m.shown for m in teams.bonus_members(winner)) or "members unknown"
        print(f"  {team.group or team.name} ({winner}): {members}")


@dataclasses.dataclass(frozen=True)
class _Timed:
    """What timing left besides the stored runs: how many runs failed in the grader, this
    machine's calibration and the cores it timed on from the start, or the cluster's
    survey, and each look that let a place in or took it out."""

    failed: int
    looked: "list[PlaceEvent]"
    calibration: "Calibration | None" = None
    cores: "list[int | None]" = dataclasses.field(default_factory=list)
    on_workers: "WorkerPlaces | None" = None

    @functools.cached_property
    def spans(self) -> "dict[Place, list[Span]]":
        """When each place that did not time the whole session did."""
        from grader.leaderboard.measuring import spans

        return spans(self.looked)


def _time(
    args: argparse.Namespace,
    store: Store,
    session: "Session",
    sandbox: "Sandbox",
    config: CourseConfig,
    looking: "Looking",
    said: "Load | None",
) -> _Timed:
    """The session's plan timed on a cluster's workers (--cluster), else on this
    machine's cores; `said`: the look already finished (--force-remeasure), if any."""
    from grader import leaderboard as lb

    work = lb.plan_timing(store, session, config, exhaustive=args.exhaustive)
    looked: list[PlaceEvent] = []
    if work.total and args.cluster:
        with _cluster(args.cluster, config) as (client, plugin):
            on_workers = _survey(client, plugin, config, args.busy_ok)
            if args.exhaustive:  # one run at a time, on one core
                on_workers = dataclasses.replace(
                    on_workers, places=on_workers.places[:1], waiting=()
                )
            timing = _cluster_timing(client, plugin, on_workers, session, config, args.exhaustive)
            failed = _measure(work, store, sandbox, config, args.exhaustive, timing, looked)
        return _Timed(failed, looked, on_workers=on_workers)
    # The cores measured while the look lasts (the grader's own CPU is not counted).
    calibration = _calibration(args.exhaustive, config) if work.total else None
    load = said
    if work.total and not args.force_remeasure:
        load = _say_if_busy(args.busy_ok, looking)
    _say_left_out(calibration)  # after a refusal, if any: a busy machine times nothing
    cores, waiting = _cores(args.exhaustive, calibration, load)
    failed = 0
    if work.total:
        here = _local_timing(sandbox, config, cores, waiting, calibration)
        failed = _measure(work, store, sandbox, config, args.exhaustive, here, looked)
    return _Timed(failed, looked, calibration, cores)


def _say_timed(timed: _Timed) -> None:
    """When each place that did not time the whole session did, and the runs the grader
    failed."""
    from grader import leaderboard as lb
    from grader.leaderboard.page_md import when_timed

    for place, spans in sorted(timed.spans.items(), key=lambda item: str(item[0])):
        shown = when_timed(lb.timed_s(spans))
        print(f"{_where(place)} timed only while its latest look agreed: {shown}")
    if timed.failed:
        warn(
            f"{timed.failed} timed runs failed in the grader and were not stored; "
            "run leaderboard again to measure them"
        )


def _machine(store: Store, session: "Session", sandbox: "Sandbox", timed: _Timed) -> dict[str, Any]:
    """The facts of what timed the session (grader.leaderboard.machine_info): the cores
    or the cluster's workers its stored runs were timed on, and when each place that
    did not time it all did."""
    from grader import leaderboard as lb

    spans = timed.spans
    survey = timed.on_workers
    workers = lb.workers_used(store, session, survey.hosts if survey is not None else {})
    used = {(worker["host"], core) for worker in workers for core in worker["cores"]}
    return lb.machine_info(
        sandbox.name,
        lb.cores_used(store, session) or ([] if workers else timed.cores),
        str(sandbox.accounting),
        timed.calibration,
        workers,
        survey.reference_s(used, spans) if survey is not None else None,
        {p.core: s for p, s in spans.items() if p.core is not None and not p.worker},
    )


def _publish(
    doc: dict[str, Any], folder: Path, store: Store, name: "Callable[[str], str] | None"
) -> None:
    """The leaderboard's files written into the results folder, and said."""
    from grader import leaderboard as lb

    made = lb.publish(doc, folder, [row.id for row in store.submissions()], name)
    print(f"\nleaderboard: {made.markdown}, {made.json} and {made.html}")
    if made.key is not None:
        print(f"pseudonyms: {made.key} (private: do not publish it, nor {lb.SALT_FILE})")


def _measure(
    work: "TimingPlan",
    store: Store,
    sandbox: "Sandbox",
    config: CourseConfig,
    exhaustive: bool,
    timing: "Timing",
    looked: "list[PlaceEvent]",
) -> int:
    """The plan timed with a progress bar, on `timing`'s places (this machine's cores or
    a cluster's); how many runs failed in the grader. `looked` gets each place a look
    let in or took out."""
    from grader import leaderboard as lb

    with progress(work.total, "timing") as bar:
        return lb.measure(
            work,
            store,
            sandbox,
            config,
            _shown_on(bar, looked),
            exhaustive=exhaustive,
            timing=timing,
        )


def _local_timing(
    sandbox: "Sandbox",
    config: CourseConfig,
    cores: "Sequence[int | None]",
    waiting: "Sequence[int]",
    calibration: "Calibration | None",
) -> "Timing":
    """This machine's `cores` (the fastest first), and the `waiting` ones: each but the
    first times only while its latest look agrees with the first core's latest (at
    first, the calibration's). Without a calibration, no look."""
    from grader.leaderboard.cores import look
    from grader.leaderboard.measuring import LocalTiming

    if calibration is None:
        return LocalTiming(sandbox, config.limits, cores)
    return LocalTiming(sandbox, config.limits, cores, waiting, look, calibration.fastest)


@contextlib.contextmanager
def _cluster(address: str, config: CourseConfig) -> "Iterator[tuple[Any, str]]":
    """A client of the cluster at `address`, with the grader's plugin on its workers."""
    from grader.grading.cluster import connect, workers_sandbox
    from grader.grading.cluster_worker import GraderPlugin

    with connect(address, say=warn) as connected:
        client = cast(Any, connected)  # distributed's Client has no annotations
        plugin = GraderPlugin(workers_sandbox(config))
        client.register_plugin(plugin)
        yield client, plugin.name


def _survey(client: Any, plugin: str, config: CourseConfig, go_on: bool) -> "WorkerPlaces":
    """The cluster's places that time (grader.leaderboard.on_workers.survey)."""
    from grader.leaderboard.on_workers import survey

    found = survey(client, plugin, config.leaderboard.rule, go_on, warn)
    if found.places:
        left = sorted(place for place in found.reference if place not in found.kept)
        if left:
            warn(
                "left out of the timing: "
                + ", ".join(f"{host} core {core}" for host, core in left)
                + " for now: the cluster's fastest core is significantly faster on the "
                "same reference work (each is looked at again while the others time, and "
                "joins once it agrees)"
            )
        return found
    raise UsageError("no worker of the cluster can time: none has a core to time on")


def _cluster_timing(
    client: Any,
    plugin: str,
    found: "WorkerPlaces",
    session: "Session",
    config: CourseConfig,
    exhaustive: bool,
) -> "ClusterTiming":
    """The cluster's places; racing, each but the first times only while its latest
    look agrees with the first place's latest, at first the survey's fastest core's
    (exhaustive: one place, no look)."""
    from grader.leaderboard.on_workers import ClusterTiming

    board = config.leaderboard
    return ClusterTiming(
        client,
        plugin,
        found,
        session.cases,
        config.limits,
        config.build_limits,
        board.warmup,
        looks=not exhaustive,
    )


def _calibration(exhaustive: bool, config: CourseConfig) -> "Calibration | None":
    """Each core's speed on the same reference work (grader.leaderboard.cores), unless
    one core times everything."""
    from grader import leaderboard as lb

    allowed = lb.allowed_cores()
    if exhaustive or len(allowed) < 2:
        return None
    return lb.calibrate(allowed, config.leaderboard.rule)


def _say_left_out(calibration: "Calibration | None") -> None:
    if calibration is not None and calibration.left_out:
        warn(
            f"core(s) {', '.join(map(str, calibration.left_out))} left out of the timing for "
            "now: the fastest core is significantly faster on the same reference work (each "
            "is looked at again while the others time, and joins once it agrees)"
        )


def _cores(
    exhaustive: bool, calibration: "Calibration | None", load: "Load | None"
) -> "tuple[list[int | None], list[int]]":
    """The cores that time runs from the start: one (the last allowed) when exhaustive,
    or where only one is free or known; else the free cores (those other work leaves, by
    the look: `load`) among the agreeing ones, the fastest first (it times throughout;
    grader.leaderboard.measuring). [None] where none can be pinned. Then the cores left
    out that may join later, as many as the free cores leave room for."""
    from grader import leaderboard as lb

    if not lb.allowed_cores():
        return [None], []
    if exhaustive or calibration is None or (load is not None and load.free_cores < 2):
        return [lb.pinned_core()], []
    fastest = sorted(calibration.used, key=lambda core: calibration.seconds[core])
    free = len(calibration.seconds) if load is None else load.free_cores
    cores = fastest[:free]
    left = sorted(calibration.left_out, key=lambda core: calibration.seconds[core])
    return ([*cores] or [lb.pinned_core()]), left[: max(0, free - len(cores))]


def _where(place: "Place") -> str:
    """'core 1', or 'tcp://10.0.0.2:4001 core 1' for a cluster's place."""
    return f"{place.worker} core {place.core}" if place.worker else f"core {place.core}"


def _shown_on(bar: Bar, looked: "list[PlaceEvent]") -> "Callable[[Event], None]":
    """What each timed run, each race decision and each look that lets a core in or
    takes it out shows on the progress bar (the looks are also kept in `looked`)."""
    from grader import leaderboard as lb

    def on_event(event: "Event") -> None:
        if isinstance(event, lb.PlaceEvent):
            looked.append(event)
            bar.on(
                f"{_where(event.place)} "
                + (
                    "joins the timing: its latest look agrees with the fastest core's latest"
                    if event.joined
                    # a look that could not be made (a worker gone) did not agree either
                    else "leaves the timing for now: its latest look did not agree with "
                    "the fastest core's latest"
                )
            )
            return
        if isinstance(event, lb.RaceEvent):
            bar.done(event.skipped)
            bar.on(
                f"stopped (every program of their language is): {', '.join(event.stopped)}"
                if event.startups
                else f"stopped (slower than every program ranked 1): {', '.join(event.stopped)}; "
                f"still timed: {len(event.racing)}"
            )
            return
        step = "warm-up" if event.run_index is None else f"run {event.run_index + 1}"
        bar.on(f"{event.program.id}/{event.case.id} {step}")
        bar.done()

    return on_event


def _start_look() -> "Looking":
    from grader.leaderboard.quiet import start_look

    return start_look()


def _say_if_busy(go_on: bool, looking: "Looking") -> "Load | None":
    """The look finished: refuse to time on a busy machine (MachineBusy), unless told
    to go on: then warn. What it found (None: nothing to read)."""
    from grader.leaderboard.quiet import refuse_if_busy

    found = looking.finish()
    note = refuse_if_busy(found, go_on)
    if note:
        warn(note)
    return found
