"""grader.results.bonus on a real results database: who gets the bonus from the recorded session,
and each way the session stops describing the class (then no one gets it, and the
programs to measure again are named)."""

import dataclasses

import pytest

from grader.course.config import CourseConfig, LeaderboardConfig
from grader.intake.teams import Member, Team, Teams
from grader.judge.score import report
from grader.results.bonus import award
from grader.store import LeaderboardSession, SessionProgram, Store
from tests.helpers import BONUS_CASES as CASES
from tests.helpers import hand_in

pytestmark = pytest.mark.fast

CONFIG = CourseConfig()  # [leaderboard] bonus = 15, the timed cases the manifest's


def teams_of(*sids: str, replaced: dict | None = None) -> Teams:
    return Teams(
        {
            sid: Team(sid, sid, "alone", (Member(sid),), (replaced or {}).get(sid, ""))
            for sid in sids
        }
    )


def session(*programs: SessionProgram, cases=(("t", "v1"),)) -> LeaderboardSession:
    return LeaderboardSession(0, 1_700_000_000.0, None, None, "CPU", {}, cases, programs)


RANKED = (
    SessionProgram("a", "h-a", "ranked", 1, 0.1),
    SessionProgram("b", "h-b", "ranked", 2, 0.5),
    SessionProgram("c", "h-c", "not timed", reason="WA on 1 case"),
)


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "grader.db") as store:
        hand_in(store, "a")
        hand_in(store, "b")
        hand_in(store, "c", verdicts=("AC", "WA"))
        yield store


def decide(store, sids=("a", "b", "c"), cases=CASES, config=CONFIG, replaced=None):
    reports = [report(store, store.submission(sid), cases) for sid in sids]
    return award(store, reports, teams_of(*sids, replaced=replaced), cases, config)


def test_every_member_of_the_rank_1_teams_and_no_one_else(store):
    assert "no leaderboard session recorded yet" in decide(store).note
    store.record_leaderboard_session(session(*RANKED))
    won = decide(store)
    assert won.winners == ("a",) and won.stale == ()
    assert (won.of("a"), won.of("b"), won.of("c")) == (15, 0, 0)
    assert won.note == (
        "speed bonus +15 to every member of the 1 team(s) ranked 1 in the leaderboard "
        "session of 2023-11-14T22:13:20+00:00: a (a)"
    )
    off = dataclasses.replace(CONFIG, leaderboard=LeaderboardConfig(bonus=0))
    assert decide(store, config=off).of("a") == 0


@pytest.mark.parametrize(
    "change, stale",
    [
        (lambda s: hand_in(s, "d"), "d passes every case and was not in that session"),
        (lambda s: hand_in(s, "a", "h-a2"), "a was handed in again since: measure it"),
        (lambda s: hand_in(s, "c"), "c passes every case and was not timed then (WA on 1 case)"),
        (
            lambda s: hand_in(s, "b", verdicts=("AC", "WA")),
            "b was ranked 2 and no longer passes every case",
        ),
    ],
)
def test_a_class_that_changed_since_the_session_gets_no_bonus(store, change, stale):
    store.record_leaderboard_session(session(*RANKED))
    change(store)
    found = decide(store, ("a", "b", "c", "d") if store.submission("d") else ("a", "b", "c"))
    assert found.winners == () and found.of("a") == 0
    assert any(reason.startswith(stale) for reason in found.stale), found.stale
    assert stale in found.note and "run `grader leaderboard --puzzles` again" in found.note


def test_a_changed_timed_case_or_an_incomplete_timing_is_stale_a_failed_one_not(store):
    store.record_leaderboard_session(session(*RANKED, cases=(("t", "v0"),)))
    assert decide(store).stale == (
        "the timed cases changed since (t): every program must be measured again",
    )
    incomplete = SessionProgram("c", "h-c", "incomplete", reason="timing incomplete")
    hand_in(store, "c")  # passes every case now
    store.record_leaderboard_session(session(RANKED[0], RANKED[1], incomplete))
    assert decide(store).stale == ("c's timing was incomplete: measure it",)
    failed = SessionProgram("c", "h-c", "failed", reason="failed while being timed: WA")
    store.record_leaderboard_session(session(RANKED[0], RANKED[1], failed))
    assert decide(store).winners == ("a",)


def test_a_session_on_drawn_puzzles_stands_for_the_timed_cases_it_drew_from(store):
    """Its puzzles are its own (fresh each session): what must not change is the timed
    cases they were drawn from."""
    drawn = {"seed": 7, "digest": "x", "puzzles": [{"id": "t-d7", "family": "t"}]}
    on_draw = dataclasses.replace(session(*RANKED, cases=(("t-d7", "p1"),)), draw=drawn)
    store.record_leaderboard_session(on_draw)
    assert decide(store).winners == ("a",)
    assert store.last_leaderboard_session().families == ("t",)
    other = {**drawn, "puzzles": [{"id": "h-d7", "family": "h"}]}
    store.record_leaderboard_session(dataclasses.replace(on_draw, draw=other))
    assert decide(store).stale == (
        "the timed cases changed since (h, t): every program must be measured again",
    )


def test_a_replaced_submission_never_makes_a_session_stale(store):
    """Its team's newer submission counts: the leaderboard never times the older one."""
    store.record_leaderboard_session(session(*RANKED))
    hand_in(store, "a-old")
    found = decide(store, ("a", "b", "c", "a-old"), replaced={"a-old": "a"})
    assert found.winners == ("a",)
    assert decide(store, ("a", "b", "c", "a-old")).winners == ()
