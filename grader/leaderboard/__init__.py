"""The speed leaderboard: who may be ranked, timing them, ranking them.

Flow, one module per step: `load_draw` (the puzzles drawn afresh for this session) ->
`prepare` (eligibility, builds, the start-up programs) ->
`plan_timing` (the timed runs not stored yet) -> `measure` (runs them, storing each at
once) -> `collect` (statistics and ranks from the stored runs) -> `document` (the
JSON-ready figures every report is drawn from) -> `publish` (the files), and
`record_session` (the session kept in the results database: the bonus's source).

What counts
    CPU time (user + sys of the whole process tree), as in grading; wall time
    is stored and shown, never ranked. A program's figure is the sum over the
    timed cases: run i of every case added up gives its i-th total, so each
    program has `runs` totals, and those totals are what the rank test
    compares. (A sum weights the longer cases more, which is what "fast on
    these puzzles" means; every program runs the same cases.) The per-case
    statistics are shown beside it.
How it is measured
    Every program runs in the grading sandbox, from its cached build folder,
    with the course's run command and limits. By default every core whose speed
    agrees with the others' on the same reference work (`calibrate`) runs one
    timed run at a time, the thread that starts it pinned to that core (its
    children inherit the pinning), and each run keeps its core. Warm-up runs
    (untimed) come first; then the timed runs go round-robin, run i of every
    program before run i + 1 of any, so a burst of load on the machine hits
    every program alike instead of one program's whole series, each round in
    an order of its own (a run is slowed by what ran just before it). The session
    races (`racing`): after the first runs the rank-1 set is timed fully, and
    a program whose runs show it slower than every one of it stops being timed;
    it is ranked by the runs it has, and the pages say so. `--exhaustive`: one
    core, every run of every program.
Start-up cost
    A program that only starts and exits, in each language a program timed is
    written in, is built and timed the same way, on the same cases, in the same
    session (it is stored like a submission, "startup/<language>"), so a table
    can say how much of a time is the language and how much the program. Racing,
    it is timed as far as the programs of its language are (`racing`).
"""

from grader.grading.draws import DRAW_HINT, Draw, DrawError, check_draw_unused, load_draw
from grader.grading.timed_runs import STARTUP_PREFIX, Program, timed_cases, timed_run
from grader.leaderboard.builds import prepare
from grader.leaderboard.cores import Calibration, allowed_cores, calibrate
from grader.leaderboard.eligible import eligibility, failure_summary
from grader.leaderboard.figures import document
from grader.leaderboard.machine import machine_info, pinned_core
from grader.leaderboard.measuring import (
    LocalTiming,
    PlaceEvent,
    RaceEvent,
    TimedRunEvent,
    TimingPlan,
    cores_used,
    measure,
    plan_timing,
    spans,
    timed_s,
    workers_used,
)
from grader.leaderboard.names import (
    PSEUDONYM_KEY,
    SALT_FILE,
    pseudonyms,
    write_pseudonym_key,
)
from grader.leaderboard.publishing import Published, publish
from grader.leaderboard.recording import record_session, session_record
from grader.leaderboard.session import Ineligible, Session
from grader.leaderboard.standings import Standings, Timed, board_caveats, collect, timed

__all__ = [
    "DRAW_HINT",
    "Draw",
    "DrawError",
    "check_draw_unused",
    "load_draw",
    "PSEUDONYM_KEY",
    "SALT_FILE",
    "STARTUP_PREFIX",
    "Calibration",
    "Ineligible",
    "Program",
    "Published",
    "Session",
    "Standings",
    "Timed",
    "LocalTiming",
    "PlaceEvent",
    "RaceEvent",
    "TimedRunEvent",
    "TimingPlan",
    "allowed_cores",
    "board_caveats",
    "calibrate",
    "collect",
    "cores_used",
    "document",
    "eligibility",
    "failure_summary",
    "machine_info",
    "measure",
    "pinned_core",
    "plan_timing",
    "prepare",
    "pseudonyms",
    "publish",
    "record_session",
    "session_record",
    "spans",
    "timed_s",
    "timed",
    "timed_cases",
    "timed_run",
    "workers_used",
    "write_pseudonym_key",
]
