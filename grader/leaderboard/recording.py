"""The session as the results database keeps it: what the speed bonus is awarded from
(grader.results.bonus). When its ranked programs were measured, by which statistic and
settings, on which puzzles (the draw's seed, and each puzzle's text and family), and
every submission it considered:
its content, and whether it was ranked (and where), failed or was incomplete while
being timed, or was not timed at all (and why)."""

import time

from grader.leaderboard.figures import STATISTIC
from grader.leaderboard.racing import stopped_note
from grader.leaderboard.standings import Standings
from grader.store import LeaderboardSession, SessionProgram, Store


def session_record(board: Standings) -> LeaderboardSession:
    settings = board.config.leaderboard
    programs = [
        SessionProgram(
            t.program.id,
            t.program.content_hash,
            "ranked",
            rank,
            t.cpu_total.median,
            stopped_note(t.timed_runs, settings.runs) if t.stopped else "",
        )
        for rank, t in board.ranked
    ]
    programs += [
        SessionProgram(
            t.program.id,
            t.program.content_hash,
            "failed" if t.failed else "incomplete",
            reason=t.problem or "",
        )
        for t in board.unranked
    ]
    timed = {p.program_id for p in programs}
    programs += [
        SessionProgram(i.id, i.content_hash, "not timed", reason=i.reason)
        for i in board.ineligible
        if i.id not in timed
    ]
    stamps = [s for _, t in board.ranked for s in (t.first_run, t.last_run) if s]
    return LeaderboardSession(
        0,
        time.time(),
        min(stamps, default=None),
        max(stamps, default=None),
        STATISTIC,
        {
            "runs": settings.runs,
            "warmup": settings.warmup,
            "noise_floor": settings.noise_floor,
            "alpha": settings.alpha,
        },
        tuple((case.id, case.version) for case in board.session.cases),
        tuple(sorted(programs, key=lambda p: p.program_id)),
        board.session.draw.record() if board.session.draw is not None else None,
    )


def record_session(store: Store, board: Standings) -> LeaderboardSession:
    """Keep the session in the results database; returns it with its number."""
    return store.record_leaderboard_session(session_record(board))
