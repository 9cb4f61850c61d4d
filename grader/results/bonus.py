"""The speed bonus: who gets it, decided from the last recorded leaderboard session.

The hand-out: "Each member of the team with the correct solution and fastest running
time in the class earns +15 points". Every member of every team whose submission the
last `grader leaderboard` ranked 1 gets `[leaderboard] bonus` points (0: none). The
session is what the store recorded (grader.leaderboard.recording): when, by which
statistic, on which timed cases, every submission it considered.

A session says who is fastest only among what it measured, so it is used only while
it still describes the class at the time of the export; else no one gets the bonus and
the reasons name the programs to measure again (in a new session, on puzzles drawn
afresh: grader.leaderboard.draws). It is stale when, since it was recorded:
- a submission that passes every case now (hidden ones included, the instructor's
  decided verdicts counting; not replaced by its team's newer one) was not timed in it:
  new, handed in again, newly passing (a regrade, a decision), or not timed then;
- a submission it ranked no longer passes every case, or was replaced or handed in
  again (the winners may change);
- the timed cases changed (its puzzles were drawn for other ones).
So only a program passing every case at the time of the export can win.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from grader.cases.manifest import Case
from grader.course.config import CourseConfig
from grader.grading.timed_runs import timed_cases
from grader.intake.teams import Teams
from grader.judge.score import SubmissionReport, format_score
from grader.store import LeaderboardSession, Store


@dataclass(frozen=True)
class Award:
    points: float  # [leaderboard] bonus
    session: LeaderboardSession | None  # the session it comes from, None: none recorded
    winners: tuple[str, ...]  # the submissions ranked 1: every member of their teams gets it
    stale: tuple[str, ...]  # why the session cannot be used (no bonus then), per program
    note: str  # one line for people: who gets it and from where, or why no one does
    # Other members' copies of a winner's group submission (a Canvas group graded
    # individually): ranked once, as the winner; their members get it too.
    copies: tuple[str, ...] = ()

    def of(self, submission_id: str) -> float:
        """The bonus a submission's team members get."""
        won = submission_id in self.winners or submission_id in self.copies
        return self.points if won else 0.0

    @property
    def applied(self) -> bool:
        return bool(self.winners)


def session_time(session: LeaderboardSession) -> str:
    return datetime.fromtimestamp(session.recorded_at, timezone.utc).isoformat(timespec="seconds")


def award(
    store: Store,
    reports: Sequence[SubmissionReport],
    teams: Teams,
    cases: Sequence[Case],
    config: CourseConfig,
) -> Award:
    """Who gets the bonus now: from the last recorded session, if it is not stale."""
    points = config.leaderboard.bonus
    session = store.last_leaderboard_session()
    if not points:
        return Award(points, session, (), (), "no speed bonus ([leaderboard] bonus = 0)")
    if session is None:
        return Award(
            points,
            None,
            (),
            (),
            "no speed bonus: no leaderboard session recorded yet (run `grader leaderboard`)",
        )
    stale = tuple(_stale(session, reports, teams, cases, config))
    when = session_time(session)
    if stale:
        shown = "; ".join(stale[:5]) + (f"; and {len(stale) - 5} more" if len(stale) > 5 else "")
        return Award(
            points,
            session,
            (),
            stale,
            f"no speed bonus: the leaderboard session of {when} no longer describes the "
            f"class: {shown}; draw new puzzles (`testcases draw`) and run `grader "
            "leaderboard --puzzles` again",
        )
    winners = tuple(p.program_id for p in session.winners)
    if not winners:
        note = f"no speed bonus: the leaderboard session of {when} ranked no program"
        return Award(points, session, (), (), note)
    names = ", ".join(f"{teams.of(w).group or teams.of(w).name} ({w})" for w in winners)
    return Award(
        points,
        session,
        winners,
        (),
        f"speed bonus +{format_score(points)} to every member of the {len(winners)} team(s) "
        f"ranked 1 in the leaderboard session of {when}: {names}",
        tuple(copy for w in winners for copy in teams.copies_of(w)),
    )


def _stale(
    session: LeaderboardSession,
    reports: Sequence[SubmissionReport],
    teams: Teams,
    cases: Sequence[Case],
    config: CourseConfig,
) -> list[str]:
    reasons = []
    timed = timed_cases(cases, config)
    if session.draw is not None:  # its puzzles were drawn from the timed cases' families
        changed = sorted({case.id for case in timed} ^ set(session.families))
    else:
        versions = {(case.id, case.version) for case in timed}
        changed = sorted({cid for cid, _ in versions ^ set(session.cases)})
    if changed:
        reasons.append(
            f"the timed cases changed since ({', '.join(changed)}): every program must be "
            "measured again"
        )
    then = {p.program_id: p for p in session.programs}
    now = {
        r.submission.id: r.submission.content_hash
        for r in reports
        if r.all_accepted
        and r.settled
        and not r.submission.problem
        and teams.ranked(r.submission.id)
    }
    for sid, content in sorted(now.items()):
        program = then.get(sid)
        if program is None:
            reasons.append(f"{sid} passes every case and was not in that session: measure it")
        elif program.content_hash != content:
            reasons.append(f"{sid} was handed in again since: measure it")
        elif program.outcome == "not timed":
            reasons.append(f"{sid} passes every case and was not timed then ({program.reason})")
        elif program.outcome == "incomplete":
            reasons.append(f"{sid}'s timing was incomplete: measure it")
    for program in session.programs:
        if program.outcome == "ranked" and program.program_id not in now:
            reasons.append(
                f"{program.program_id} was ranked {program.rank} and no longer passes every "
                "case, or its team's newer submission replaced it: rank again"
            )
    return reasons
