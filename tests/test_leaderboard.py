"""The leaderboard: statistics, the rank rule, eligibility, storage, and the
whole command on the shipped example programs (real compilers, real sandbox)."""

import contextlib
import dataclasses
import html
import itertools
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markupsafe import escape

from grader import leaderboard as lb
from grader.cases.manifest import load_cases
from grader.cli import main as grader_main
from grader.core.model import RunResult, Verdict
from grader.course.config import load_config
from grader.intake.submissions import load
from grader.languages import BY_NAME
from grader.leaderboard.page_md import markdown, seconds
from grader.results.html_page import CSP
from grader.schemas import validate
from grader.statistics.rank_tests.mann_whitney import (
    Result,
    mann_whitney,
    mid_ranks,
    smallest_p_value,
)
from grader.statistics.timing import (
    Rule,
    mad,
    median,
    outliers,
    ranks,
    significantly_faster,
    summarize,
)
from grader.store import Store
from tests.helpers import (
    BUSY_OK,
    ROOT,
    assert_valid,
    draw_of,
    manifest_subset,
    store_case,
    tiny_document,
)

pytestmark = pytest.mark.fast

# ------------------------------------------------------------------ statistics


def test_median_and_mad_on_known_values():
    assert median([3, 1, 2]) == 2
    assert median([4, 1, 3, 2]) == 2.5
    # deviations from the median 2 are 1 1 0 0 2 4 7: their median is 1
    assert mad([1, 1, 2, 2, 4, 6, 9]) == 1
    s = summarize([0.010, 0.011, 0.009, 0.010, 0.030])
    assert (s.median, s.minimum, s.maximum) == (0.010, 0.009, 0.030)
    assert s.mad == pytest.approx(0.001) and s.relative_mad == pytest.approx(0.1)
    with pytest.raises(ValueError):
        median([])


def test_outliers_use_three_scaled_mads():
    runs = [10.0, 10.1, 9.9, 10.0, 10.2, 9.8, 30.0]
    assert outliers(runs) == [6]  # MAD 0.1: the limit is 3 x 1.4826 x 0.1 = 0.44
    assert outliers([10.0, 10.1, 9.9, 10.0, 10.2, 9.8, 10.4]) == []
    assert outliers([10.0, 10.1, 9.9, 10.0, 10.2, 9.8, 10.5]) == [6]


@pytest.mark.parametrize(
    "last, flagged", [(10.44, False), (10.46, True), (9.54, True), (9.56, False)]
)
def test_the_outlier_limit_is_three_scaled_mads_exactly(last, flagged):
    """MAD 0.1, so the limit is 3 x 1.4826 x 0.1 = 0.4448 from the median 10.0: a run
    0.46 away is an outlier (it would not be at 3.3 MADs, 0.489), one 0.44 away is not."""
    runs = [10.0, 10.1, 9.9, 10.0, 10.2, 9.8, last]
    assert outliers(runs) == ([6] if flagged else [])
    assert summarize(runs).outliers == ((6,) if flagged else ())


def test_a_neighbouring_clock_step_is_no_outlier_when_the_mad_is_zero():
    assert outliers([0.0025] * 5 + [0.0026]) == []  # one 0.1 ms step
    assert outliers([0.0025] * 5 + [0.0050]) == [5]


def test_mid_ranks_share_ties():
    assert mid_ranks([5, 1, 5, 3]) == [3.5, 1, 3.5, 2]


# SciPy 1.17.1, scipy.stats.mannwhitneyu(x, y, alternative="two-sided"), computed once:
# method="exact" for the small samples without ties, "asymptotic" (tie and continuity
# corrections) for the large one.
SCIPY = [
    ([19, 22, 16, 29, 24], [20, 11, 17, 12], 17.0, 0.1111111111111111),
    (
        [1.1, 2.2, 3.3, 4.4, 5.5, 6.6, 7.7],
        [3.0, 5.0, 8.0, 9.0, 10.0, 11.0, 12.0],
        8.0,
        0.03787878787878788,
    ),
    (
        [0.0147, 0.0149, 0.0151, 0.0143, 0.0148, 0.0150, 0.0152],
        [0.0245, 0.0243, 0.0265, 0.0247, 0.0249, 0.0251, 0.0246],
        0.0,
        0.0005827505827505828,
    ),
]
SCIPY_LARGE = (
    [
        10.0,
        10.3,
        9.7,
        9.1,
        9.5,
        9.0,
        10.1,
        11.3,
        9.5,
        9.4,
        10.5,
        10.4,
        10.1,
        9.1,
        10.0,
        10.7,
        8.7,
        9.5,
        8.1,
        8.7,
    ],
    [
        9.0,
        10.6,
        9.5,
        11.1,
        11.0,
        10.6,
        8.3,
        10.3,
        10.8,
        10.9,
        9.3,
        10.3,
        9.8,
        10.0,
        11.9,
        10.0,
        10.8,
        11.7,
        10.2,
        10.7,
        10.9,
        10.9,
        9.6,
        10.9,
        12.2,
    ],
    123.5,
    0.003952382607267275,
)


@pytest.mark.parametrize("x, y, u, p", SCIPY)
def test_mann_whitney_exact_matches_scipy(x, y, u, p):
    result = mann_whitney(x, y)
    assert result.exact and result.u == u and result.p_value == pytest.approx(p, rel=1e-12)


def test_mann_whitney_large_samples_match_scipy_normal_approximation():
    x, y, u, p = SCIPY_LARGE
    result = mann_whitney(x, y)
    assert not result.exact and result.u == u
    assert result.p_value == pytest.approx(p, rel=1e-9)


def test_mann_whitney_textbook_extreme():
    # Complete separation of 5 and 5: 2 of the C(10, 5) = 252 splits are as extreme.
    assert mann_whitney([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]).p_value == pytest.approx(2 / 252)
    assert mann_whitney([1, 2, 3], [4, 5, 6]).p_value == pytest.approx(0.1)
    assert smallest_p_value(3, 3) == pytest.approx(0.1)
    assert smallest_p_value(7, 7) == pytest.approx(2 / 3432)
    assert mann_whitney([2, 2, 2], [2, 2, 2]).p_value == 1.0
    # with ties: the permutation p-value (SciPy 1.17's "exact" mode says 0.1255 here,
    # the no-ties distribution)
    tied = ([1, 2, 2, 3, 3, 3], [3, 4, 4, 5, 2])
    assert _enumerated_p(*tied) == pytest.approx(26 / 231)
    assert mann_whitney(*tied).p_value == pytest.approx(26 / 231)


def _enumerated_p(x, y):
    """The permutation p-value by listing every split: the definition itself."""
    ranks_ = mid_ranks(list(x) + list(y))
    observed = sum(ranks_[: len(x)])
    sums = [
        sum(ranks_[i] for i in chosen)
        for chosen in itertools.combinations(range(len(ranks_)), len(x))
    ]
    low = sum(s <= observed + 1e-9 for s in sums)
    high = sum(s >= observed - 1e-9 for s in sums)
    return min(1.0, 2 * min(low, high) / len(sums))


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(0, 6), min_size=1, max_size=7),
    st.lists(st.integers(2, 8), min_size=1, max_size=7),
)
def test_exact_p_value_with_ties_is_the_permutation_p_value(x, y):
    # Tied runs are common (times come in 0.1 ms steps): the exact p-value must
    # still be exact, which SciPy's exact mode does not promise.
    assert mann_whitney(x, y).p_value == pytest.approx(_enumerated_p(x, y), abs=1e-12)


# ------------------------------------------------------------------ ranking

A = [100, 101, 102, 103, 104, 105, 106]
B = [102, 103, 104, 105, 106, 107, 108]
C = [104, 105, 106, 107, 108, 109, 110]


def test_ties_are_not_transitive_a_b_and_b_c_tie_but_a_beats_c():
    assert mann_whitney(A, B).p_value > 0.05 and mann_whitney(B, C).p_value > 0.05
    assert mann_whitney(A, C).p_value < 0.05
    assert ranks({"A": A, "B": B, "C": C}, Rule(0.0, 0.05)) == {"A": 1, "B": 1, "C": 2}


def test_faster_is_closed_under_chains():
    """A beats B, B beats C, but 3 runs against 4 can never reach p < 0.05 (the smallest
    p-value is 2/35 = 0.057), so the test alone cannot separate A from C. Without the
    closure C would be beaten by B only and share rank 2 with B, the program beating it."""
    A, B, C = [1.0, 1.1, 1.2], [2.0, 2.1, 2.2, 2.3, 2.4, 2.5, 2.6], [3.0, 3.1, 3.2, 3.3]
    samples = {"A": A, "B": B, "C": C}
    assert {(c.faster, c.slower) for c in significantly_faster(samples, Rule(0.0, 0.05))} == {
        ("A", "B"),
        ("B", "C"),
    }
    assert smallest_p_value(3, 4) > 0.05
    assert ranks(samples, Rule(0.0, 0.05)) == {"A": 1, "B": 2, "C": 3}


def test_a_chain_of_four_is_closed_whatever_the_passes_it_takes():
    """Only neighbours differ significantly (2 runs against 7 cannot reach p < 0.05, nor 3
    against 8 with one of the 8 lower than all 3). One pass over a, b, c, d in that order
    gives a the programs b beats, not the ones c beats: the closure must keep going until
    nothing changes, or d would be ranked third, level with c, which beats it."""
    samples = {
        "a": [1.0, 1.1, 1.2],
        "b": [2.0, 2.1, 2.2, 2.3, 2.4, 2.5, 2.6],
        "c": [0.5, 3.0, 3.1, 3.2, 3.3, 3.4, 3.5, 3.6],
        "d": [5.0, 5.1],
    }
    assert sorted((c.faster, c.slower) for c in significantly_faster(samples, Rule(0.0, 0.05))) == [
        ("a", "b"),
        ("b", "c"),
        ("c", "d"),
    ]
    assert ranks(samples, Rule(0.0, 0.05)) == {"a": 1, "b": 2, "c": 3, "d": 4}


@pytest.mark.parametrize("x, y", [([], [1.0]), ([1.0], []), ([], [])])
def test_the_rank_test_refuses_an_empty_sample_by_name(x, y):
    with pytest.raises(ValueError, match="^the Mann-Whitney test needs runs in both samples$"):
        mann_whitney(x, y)


@pytest.mark.parametrize("n1, n2, exact", [(15, 15, True), (1, 29, True), (15, 16, False)])
def test_the_exact_test_is_used_up_to_30_runs_in_all(n1, n2, exact):
    x = [float(v) for v in range(n1)]
    y = [float(v) + 0.5 for v in range(n2)]
    assert mann_whitney(x, y).exact is exact


def test_an_observation_at_the_centre_has_p_value_1():
    """More than half the splits are as extreme on each side: p is capped at 1."""
    assert mann_whitney([1.0, 2.0, 3.0], [1.5, 2.5]).p_value == 1.0


def test_exactly_the_limit_away_is_no_outlier():
    limit = 1e-4 + 1e-12  # MAD 0: RESOLUTION_S, plus the float tolerance
    assert outliers([0.0, 0.0, 0.0, 0.0, limit]) == []
    assert outliers([0.0, 0.0, 0.0, 0.0, 2e-4]) == [4]


def test_median_of_nothing_is_refused_by_name():
    with pytest.raises(ValueError, match="^median of no values$"):
        median([])


def test_summary_keeps_the_runs_in_their_order():
    s = summarize([3, 1, 2, 40])
    assert s.runs == (3.0, 1.0, 2.0, 40.0) and s.outliers == (3,)
    assert (s.median, s.minimum, s.maximum, s.mad) == (2.5, 1.0, 40.0, 1.0)


def test_normal_approximation_edges():
    same = [float(v) for v in range(16)]
    assert mann_whitney(same, same) == Result(128.0, 1.0, False)  # U at its mean: p is 1
    assert mann_whitney([1.0] * 16, [1.0] * 16).p_value == 1.0  # no variance at all


@pytest.mark.parametrize(
    "n1, n2, p",
    [
        (3, 3, 0.1),
        (7, 7, 2 / 3432),
        (15, 15, 2 / 155117520),
        (16, 15, 0.0),
        (40, 2, 0.0),
        (0, 3, 1.0),
        (1, 1, 1.0),
    ],
)
def test_smallest_p_value(n1, n2, p):
    assert smallest_p_value(n1, n2) == pytest.approx(p, rel=1e-12, abs=0)


def test_significantly_faster_reports_each_separated_pair_once():
    """Typical short programs (medians well under 1 s); the pairs come out once each,
    faster first, with the rank test's p-value and the ratio of medians."""
    samples = {
        "c": [0.010, 0.011, 0.012, 0.010, 0.011],
        "a": [0.020, 0.021, 0.022, 0.020, 0.021],
        "b": [0.0105, 0.0115, 0.0125, 0.0105, 0.0115],
    }
    found = significantly_faster(samples, Rule(0.03, 0.05))
    assert [(c.faster, c.slower) for c in found] == [("b", "a"), ("c", "a")]
    assert [c.p_value for c in found] == [2 / 252, 2 / 252]
    assert [c.ratio for c in found] == [pytest.approx(0.021 / 0.0115), pytest.approx(0.021 / 0.011)]


def test_a_program_with_median_zero_is_never_compared():
    """A median of 0 (below the clock's step) gives no ratio; the others are still compared."""
    samples = {"a": [1.0, 1.1, 1.2, 1.0, 1.1], "b": [0.0] * 5, "c": [2.0, 2.1, 2.2, 2.0, 2.1]}
    assert [(c.faster, c.slower) for c in significantly_faster(samples, Rule(0.03, 0.05))] == [
        ("a", "c")
    ]


def test_a_pair_within_the_noise_floor_does_not_stop_the_others():
    samples = {
        "a": [0.99, 0.995, 1.0, 1.005, 1.01],
        "b": [1.02, 1.025, 1.03, 1.035, 1.04],
        "c": [2.0, 2.1, 2.2, 2.0, 2.1],
    }
    # medians 1.0 and 1.03: a ratio of exactly 1 + the noise floor is not "more than" it
    assert [(c.faster, c.slower) for c in significantly_faster(samples, Rule(0.03, 0.05))] == [
        ("a", "c"),
        ("b", "c"),
    ]
    assert [(c.faster, c.slower) for c in significantly_faster(samples, Rule(0.0299, 0.05))] == [
        ("a", "b"),
        ("a", "c"),
        ("b", "c"),
    ]


def test_a_p_value_equal_to_alpha_is_not_significant():
    samples = {"a": [1.0, 1.1, 1.2], "b": [2.0, 2.1, 2.2]}  # 3 runs each: p = 0.1 at best
    assert significantly_faster(samples, Rule(0.0, 0.1)) == []
    assert len(significantly_faster(samples, Rule(0.0, 0.1000001))) == 1


def test_noise_floor_keeps_clearly_separated_but_close_medians_tied():
    fast = [1.000, 1.001, 1.002, 1.003, 1.004, 1.005, 1.006]
    close = [x * 1.02 for x in fast]  # 2% slower, every run: the test alone separates them
    far = [x * 1.05 for x in fast]
    assert mann_whitney(fast, close).p_value < 0.001
    assert ranks({"fast": fast, "close": close}, Rule(0.03, 0.05)) == {"fast": 1, "close": 1}
    assert ranks({"fast": fast, "close": close}, Rule(0.0, 0.05)) == {"fast": 1, "close": 2}
    assert ranks({"fast": fast, "far": far}, Rule(0.03, 0.05)) == {"fast": 1, "far": 2}


def test_medians_at_most_a_tenth_of_a_millisecond_apart_are_never_ranked_apart():
    """Starting a process varies by tens of microseconds: two copies of a 1.3 ms
    program can read 1.3 and 1.4 ms on every run (7.7% apart, p = 0.0006), as runs
    stored in steps of 0.1 ms did. 0.1 ms is no difference; 0.2 ms is."""
    samples = {"a": [0.0013] * 7, "b": [0.0014] * 7, "c": [0.0015] * 7}
    assert {(p.faster, p.slower) for p in significantly_faster(samples, Rule(0.03, 0.05))} == {
        ("a", "c")
    }
    assert ranks(samples, Rule(0.03, 0.05)) == {"a": 1, "b": 1, "c": 2}


def test_alpha_decides_and_ranks_count_faster_programs():
    samples = {
        "c": [1, 1.1, 1.2, 1.05, 1.15],
        "py": [5, 5.2, 5.1, 5.3, 5.05],
        "java": [9, 9.1, 9.2, 9.3, 9.4],
        "py2": [5.1, 5.0, 5.25, 5.15, 5.2],
    }
    assert ranks(samples, Rule(0.03, 0.05)) == {"c": 1, "py": 2, "py2": 2, "java": 4}
    # 5 runs each: the smallest p-value is 2/252 = 0.0079; below it nothing separates.
    assert set(ranks(samples, Rule(0.03, 0.005)).values()) == {1}


def test_one_wild_run_does_not_change_the_ranking():
    fast = [1.0, 1.01, 1.02, 0.99, 1.0, 1.01, 8.0]  # one run hit by the machine's load
    slow = [1.5, 1.52, 1.49, 1.51, 1.5, 1.53, 1.48]
    assert ranks({"fast": fast, "slow": slow}, Rule(0.03, 0.05)) == {"fast": 1, "slow": 2}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(1, 40), min_size=5, max_size=5), min_size=2, max_size=6))
def test_a_significantly_faster_program_always_ranks_better(series):
    samples = {f"p{i}": [float(v) for v in s] for i, s in enumerate(series)}
    rank = ranks(samples, Rule(0.03, 0.05))
    assert min(rank.values()) == 1
    for c in significantly_faster(samples, Rule(0.03, 0.05)):
        assert rank[c.faster] < rank[c.slower]


# ------------------------------------------------------------------ small pieces


def test_failure_summary_names_each_verdict_once():
    assert (
        lb.failure_summary(["AC", "WA", "WA", "TLE", "AC", "WA"]) == "WA on 3 cases, TLE on 1 case"
    )
    assert lb.failure_summary(["AC", "AC"]) == ""


def test_seconds_are_shown_in_a_readable_unit():
    assert seconds(0.00234) == "2.34 ms"
    assert seconds(0.2384) == "238.4 ms"
    assert seconds(1.5) == "1.500 s"
    assert seconds(-0.0004) == "-0.40 ms"
    assert seconds(None) == "-"


def test_pseudonyms_are_stable_secret_and_per_results_folder(tmp_path):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
    first = lb.pseudonyms(tmp_path / "a")
    again = lb.pseudonyms(tmp_path / "a")
    other = lb.pseudonyms(tmp_path / "b")
    assert first("ada-c") == again("ada-c") != first("grace-cpp")
    # Hex digits only after the prefix: nothing of the name (a digest may read "fada3...").
    assert re.fullmatch(r"anon-[0-9a-f]+", first("ada-c"))
    assert other("ada-c") != first("ada-c")  # a different secret salt
    salt = tmp_path / "a" / lb.SALT_FILE
    assert salt.stat().st_mode & 0o077 == 0


def test_timings_are_stored_per_content_case_version_and_run(tmp_path):
    result = RunResult(0, None, 0.0123, 0.02, 100, b"", b"", 0, sandbox="bubblewrap")
    with Store(tmp_path / "g.db") as store:
        for index in range(3):
            store.record_timing("amy", "h1", store_case("c1", "v1"), index, Verdict.AC, result, 1)
        store.record_timing("amy", "h1", store_case("c1", "v2"), 0, "AC", result, None)
        store.record_timing("amy", "h2", store_case("c1", "v1"), 0, "AC", result, None)
        rows = store.timings("amy", "h1")
        assert [(r.case_version, r.run_index) for r in rows] == [
            ("v1", 0),
            ("v1", 1),
            ("v1", 2),
            ("v2", 0),
        ]
        assert rows[0].cpu_seconds == 0.0123 and rows[0].core == 1 and rows[0].verdict == "AC"
        assert len(store.timings("amy", "h2")) == 1
        store.forget_timings()
        assert store.timings("amy", "h1") == []


def _stored_session(store: Store, cpu_by_program: dict, verdicts=None, runs=7):
    """A session of programs whose timed runs are already stored (nothing is run):
    `cpu_by_program` maps a program id to its CPU seconds per run, on one case."""
    c1 = store_case("c1", "v1")
    programs = []
    for pid, runs_of in cpu_by_program.items():
        for index, cpu in enumerate(runs_of):
            verdict = (verdicts or {}).get((pid, index), "AC")
            store.record_timing(
                pid,
                "h-" + pid,
                c1,
                index,
                verdict,
                RunResult(0, None, cpu, cpu * 1.1, 100, b"", b"", 0),
                0,
            )
        programs.append(lb.Program(pid, load_config().languages["c"], "h-" + pid, Path(".")))
    return lb.Session(cases=[c1], programs=programs, startups=[], ineligible=[])


def test_collect_keeps_programs_within_the_noise_floor_tied(tmp_path):
    """Every run of "close" is 2% slower than "fast" (the rank test alone separates
    them); the configured noise floor of 3% keeps them tied, 10% slower is not."""
    fast = [1.000, 1.001, 1.002, 1.003, 1.004, 1.005, 1.006]
    config = load_config()
    assert config.leaderboard.noise_floor == 0.03 and config.leaderboard.runs == 7
    with Store(tmp_path / "g.db") as store:
        session = _stored_session(
            store,
            {"fast": fast, "close": [x * 1.02 for x in fast], "far": [x * 1.10 for x in fast]},
        )
        board = lb.collect(store, session, config)
    assert [(rank, t.program.id) for rank, t in board.ranked] == [
        (1, "fast"),
        (1, "close"),
        (3, "far"),
    ]
    assert board.beats == {"fast": ["far"], "close": ["far"], "far": []}
    assert board.ineligible == []


def test_collect_excludes_failed_and_incomplete_timings_with_the_reason(tmp_path):
    runs = [0.5, 0.51, 0.52, 0.53, 0.54, 0.55, 0.56]
    with Store(tmp_path / "g.db") as store:
        session = _stored_session(
            store,
            {"ok": runs, "flaky": runs, "short": runs[:4]},
            verdicts={("flaky", 2): "TLE", ("flaky", 5): "WA"},
        )
        board = lb.collect(store, session, load_config())
    assert [t.program.id for _, t in board.ranked] == ["ok"]
    assert {(i.id, i.reason) for i in board.ineligible} == {
        ("flaky", "failed while being timed: TLE on c1 (run 3) and 1 more"),
        ("short", "timing incomplete: run leaderboard again"),
    }


def test_markdown_cells_cannot_break_the_table():
    doc = tiny_document(reason="crashed | then\nstopped")
    text = markdown(doc)
    assert "crashed \\| then stopped" in text


HOSTILE_NAME = (
    "<img src=https:host>[l](https:host)![i](https://host/x.png)**b**https://host.example\x1b[2J"
)


def test_a_name_or_reason_a_student_chose_is_text_on_the_page_github_renders():
    """leaderboard.md as GitHub renders it (cmark-gfm, with its autolink and tag filter
    extensions): no image, no link, no markup from a name or a reason, every
    character of them shown."""
    import cmarkgfm

    doc = tiny_document(reason=f"two programs: {HOSTILE_NAME}.c and x.c")
    doc["ranked"][0]["id"] = HOSTILE_NAME
    doc["not_eligible"][0]["id"] = "`" + HOSTILE_NAME + "``"
    page = cmarkgfm.github_flavored_markdown_to_html(markdown(doc))
    assert "<img" not in page and "<a " not in page and "<strong>b" not in page
    assert "\x1b" not in page and "\\x1b[2J" in page  # the escape shown, not kept
    shown = html.unescape(page)
    # the ranking, the bonus line, the per-case table; the ineligible name and reason
    assert shown.count("<img src=https:host>[l](https:host)![i](https://host/x.png)**b**") == 5


def test_the_tiny_document_fits_the_schema():
    assert_valid(tiny_document(), "leaderboard")
    broken = tiny_document()
    del broken["ranked"][0]["rank"]
    assert "rank" in validate(broken, "leaderboard")


# ------------------------------------------------------------------ eligibility


def test_a_changed_or_ungraded_submission_is_not_eligible(tmp_path):
    config = load_config()
    folder = tmp_path / "amy"
    folder.mkdir()
    (folder / "puzzlesolver.py").write_text("print('hi')\n")
    cases = load_cases()
    with Store(tmp_path / "g.db") as store:
        store.record_submission(load(folder, config))
        row = store.submission("amy")
        assert lb.eligibility(row, store, cases, config) == (
            None,
            "not graded yet: run grade first",
        )
        (folder / "puzzlesolver.py").write_text("print('changed')\n")
        assert lb.eligibility(row, store, cases, config) == (
            None,
            "changed since it was graded: run grade first",
        )
        shutil.rmtree(folder)
        sub, reason = lb.eligibility(row, store, cases, config)
        assert sub is None and "is gone" in reason


def test_unknown_leaderboard_case_is_one_clear_error(tmp_path, capsys):
    course = tmp_path / "course.toml"
    course.write_text('[leaderboard]\ncases = ["no-such-case"]\n')
    (tmp_path / "res").mkdir()
    Store(tmp_path / "res" / "grader.db").close()
    draw = draw_of(ROOT / "testcases" / "manifest.json", tmp_path / "draw.json")
    code = grader_main(
        ["--course", str(course), "leaderboard", "--results", str(tmp_path / "res")]
        + ["--puzzles", str(draw)]
    )
    err = capsys.readouterr().err
    assert code == 2 and "leaderboard.cases" in err and "no-such-case" in err
    assert "Traceback" not in err


def test_leaderboard_before_grading_says_so(tmp_path, capsys):
    draw = draw_of(ROOT / "testcases" / "manifest.json", tmp_path / "draw.json")
    code = grader_main(
        ["leaderboard", "--results", str(tmp_path / "nothing"), "--puzzles", str(draw)]
    )
    assert code == 2 and "run `grader grade` first" in capsys.readouterr().err


# ------------------------------------------------------------------ the whole command

EXAMPLES = ("ada-c", "grace-cpp", "james-java", "guido-py")
WRONG = ("compile-error", "crash")
TIMED = ("timed-3-letters-a", "timed-2-letters-a", "timed-3-letters-c")
EXTRA = ("sample", "lightbulbs")  # crash aborts on lightbulbs
RUNS = 7  # timed runs per program and case: the default, enough to rank C above Java


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The shipped examples (four correct, two wrong) graded on a few real cases."""
    root = tmp_path_factory.mktemp("leaderboard")
    klass = root / "class"
    for sid in EXAMPLES + WRONG:
        shutil.copytree(ROOT / "submissions" / sid, klass / sid)
    manifest = manifest_subset(root / "cases", TIMED + EXTRA)
    course = root / "course.toml"
    course.write_text(f"[leaderboard]\nruns = {RUNS}\nwarmup = 1\n")
    results = root / "results"
    args = ["--course", str(course), "--manifest", str(manifest)]
    assert grader_main(args + ["grade", str(klass), "--results", str(results)]) == 0
    return {
        "args": args,
        "results": results,
        "klass": klass,
        "manifest": manifest,
        "course": course,
    }


def _draw(graded, seed=1) -> Path:
    return draw_of(graded["manifest"], graded["results"].parent / f"draw-{seed}.json", seed)


def _leaderboard(graded, *extra, seed=1) -> dict:
    """A session on puzzles drawn for it (the same draw may time the same programs again)."""
    draw = _draw(graded, seed)
    code = grader_main(
        graded["args"]
        + ["leaderboard", "--results", str(graded["results"]), "--puzzles", str(draw), BUSY_OK]
        + list(extra)
    )
    assert code == 0
    doc = json.loads((graded["results"] / "leaderboard.json").read_text())
    assert_valid(doc, "leaderboard")
    return doc


@pytest.fixture(scope="module")
def first_board(graded):
    return _leaderboard(graded)


@pytest.mark.slow
def test_only_programs_passing_every_case_are_ranked(first_board, graded):
    doc = first_board
    assert sorted(e["id"] for e in doc["ranked"]) == sorted(EXAMPLES)
    reasons = {e["id"]: e["reason"] for e in doc["not_eligible"]}
    assert reasons == {"compile-error": "build failed", "crash": "RTE on 1 case"}
    assert sorted(c["id"] for c in doc["settings"]["cases"]) == sorted(f"{t}-d1" for t in TIMED)
    assert doc["settings"]["runs"] == RUNS
    assert not doc["settings"]["exhaustive"]
    for entry in doc["ranked"]:
        # The race: rank 1 timed fully; a program stopped early is said to be, with its runs.
        timed = RUNS if not entry["stopped_early"] else 3
        assert entry["timed_runs"] == timed and not (entry["winner"] and entry["stopped_early"])
        assert len(entry["cpu_runs_s"]) == timed and len(entry["cases"]) == len(TIMED)
        # the totals are run i of every case added up
        for i, total in enumerate(entry["cpu_runs_s"]):
            assert total == pytest.approx(sum(c["cpu_runs_s"][i] for c in entry["cases"]))
    by_id = {e["id"]: e for e in doc["ranked"]}
    # C is among the winners and clearly ahead of Java (starting a JVM alone takes longer)
    assert by_id["ada-c"]["rank"] == 1 and by_id["james-java"]["rank"] > 1
    assert by_id["james-java"]["stopped_early"], "3 runs show a JVM slower than C"
    # the start-up program of every language a ranked program is in, and of no other (no
    # Rust program here: rustc is installed, and its start-up is neither built nor timed)
    languages = {entry["language"] for entry in doc["ranked"]}
    assert "rust" not in languages and "rust" in BY_NAME
    assert [s["language"] for s in doc["startup"] if s["available"]] == sorted(languages)
    assert not list((graded["results"] / "builds").glob("**/startup-sources/rust"))
    java_start = next(s for s in doc["startup"] if s["language"] == "java")
    # a start-up is timed as far as its language's programs: Java's stopped with james-java
    full = {e["language"] for e in doc["ranked"] if not e["stopped_early"]}
    assert {s["language"]: (s["timed_runs"], s["stopped_early"]) for s in doc["startup"]} == {
        language: (RUNS, False) if language in full else (3, True) for language in languages
    }
    assert java_start["stopped_early"]
    assert by_id["james-java"]["startup_cpu_median_s"] == java_start["cpu_median_s"]
    assert by_id["james-java"]["cpu_median_s"] > java_start["cpu_median_s"]
    results = graded["results"]
    assert "ada-c" in (results / "leaderboard.md").read_text()
    page = (results / "leaderboard.html").read_text()
    assert '<table id="ranking">' in page and '<img id="runs-plot"' in page
    assert f'<meta http-equiv="Content-Security-Policy" content="{escape(CSP)}">' in page


@pytest.mark.slow
def test_two_runs_back_to_back_agree(first_board, graded):
    """Stability: between two sessions the order may only gain or lose ties, never
    reverse. How far the medians move is a timing figure, not a pass/fail line on
    a shared machine: bench/bench_leaderboard_stability.py measures and prints it
    (every program, start-up programs included, drifts together by up to ~10%
    from one minute to the next on this virtual machine)."""
    second = _leaderboard(graded, "--force-remeasure")
    rank1 = {e["id"]: e["rank"] for e in first_board["ranked"]}
    rank2 = {e["id"]: e["rank"] for e in second["ranked"]}
    assert rank1.keys() == rank2.keys()
    for a, b in itertools.permutations(rank1, 2):  # ties allowed, reversals not
        assert not (rank1[a] < rank1[b] and rank2[a] > rank2[b]), (a, b, rank1, rank2)
    before, after = _medians(first_board), _medians(second)
    assert before.keys() == after.keys() and all(v > 0 for v in after.values())


def _medians(doc: dict) -> dict:
    found = {e["id"]: e["cpu_median_s"] for e in doc["ranked"]}
    found.update(
        {"startup:" + s["language"]: s["cpu_median_s"] for s in doc["startup"] if s["available"]}
    )
    return found


@pytest.mark.slow
def _incomplete(store: Store, session: lb.Session) -> set[str]:
    """The programs with fewer stored runs than RUNS of some case of `session`."""
    ids = {case.id for case in session.cases}
    return {
        program.id
        for program in session.programs
        if len([t for t in store.timings(program.id, program.content_hash) if t.case_id in ids])
        < RUNS * len(ids)
    }


def test_measuring_resumes_where_it_stopped(first_board, graded):
    config = load_config(graded["course"])
    cases = load_cases(graded["manifest"])
    with Store(graded["results"] / "grader.db") as store:
        from grader.sandbox import make_sandbox

        sandbox = make_sandbox(config.sandbox, warn=lambda message: None)
        draw = lb.load_draw(
            _draw(graded), graded["results"] / "draws", lb.timed_cases(cases, config)
        )
        session = lb.prepare(store, cases, config, sandbox, graded["results"] / "builds", draw=draw)
        assert lb.plan_timing(store, session, config).total == 0
        # The programs the last session's race stopped: an earlier test may have timed
        # again (--force-remeasure), and a race may time fully one it stopped before.
        stopped = _incomplete(store, session)
        ada = next(p for p in session.programs if p.id == "ada-c")
        with sqlite3.connect(graded["results"] / "grader.db") as db:  # as if interrupted
            db.execute(
                "DELETE FROM timings WHERE program_id='ada-c' AND run_index >= 5 AND case_id=?",
                (f"{TIMED[0]}-d1",),
            )
            db.execute("DELETE FROM timings WHERE program_id='startup/c' AND run_index = 0")
        work = lb.plan_timing(store, session, config)
        # ada-c leads the rank-1 set and is now partly timed: the programs the race had
        # stopped are planned again (nothing is settled while a leader is incomplete),
        # and so are their languages' start-ups (one program of each language here)...
        # (one within twice ada-c's median was timed fully with it: racing.close_to)
        assert "james-java" in stopped
        languages = {p.id: p.language.name for p in session.programs}
        startups = {f"startup/{languages[pid]}" for pid in stopped}
        assert work.todo == {
            ("ada-c", f"{TIMED[0]}-d1"): list(range(5, RUNS)),
            **{
                (pid, f"{cid}-d1"): list(range(3, RUNS))
                for pid in stopped | startups
                for cid in TIMED
            },
            **{("startup/c", f"{cid}-d1"): [0] for cid in TIMED},
        }
        timed_runs = []
        failed = lb.measure(
            work,
            store,
            sandbox,
            config,
            lambda event: (
                timed_runs.append((event.program.id, event.run_index))
                if isinstance(event, lb.TimedRunEvent)
                else None
            ),
        )
        assert failed == 0
        # ...and stopped again once ada-c is complete, before any timed run of theirs.
        assert sorted(r for r in timed_runs if r[1] is not None) == [
            ("ada-c", i) for i in range(5, RUNS)
        ] + [("startup/c", 0)] * len(TIMED)
        warmups = 1 + len(TIMED) + 2 * len(stopped) * len(TIMED)
        assert len([r for r in timed_runs if r[1] is None]) == warmups
        assert lb.plan_timing(store, session, config).total == 0
        assert ada.folder.is_dir() and ada.folder.parent == graded["results"] / "builds"


@pytest.mark.slow
def test_anonymized_names_are_stable_and_hide_every_name(first_board, graded):
    anon1 = _leaderboard(graded, "--anonymize")
    anon2 = _leaderboard(graded, "--anonymize")
    assert anon1["anonymized"] and [e["id"] for e in anon1["ranked"]] == [
        e["id"] for e in anon2["ranked"]
    ]
    results = graded["results"]
    published = "".join(
        (results / name).read_text()
        for name in ("leaderboard.json", "leaderboard.md", "leaderboard.html")
    )
    for sid in EXAMPLES + WRONG:
        assert sid not in published
    assert all(e["id"].startswith("anon-") for e in anon1["ranked"] + anon1["not_eligible"])
    assert os.stat(results / lb.SALT_FILE).st_mode & 0o077 == 0
    # the instructor's private key from pseudonym to name
    key = results / lb.PSEUDONYM_KEY
    assert os.stat(key).st_mode & 0o077 == 0
    mapping = dict(line.split(",") for line in key.read_text().splitlines()[1:])
    assert {mapping[e["id"]] for e in anon1["ranked"]} == set(EXAMPLES)
    # the same timings as without --anonymize: nothing was measured again
    runs = anon1["ranked"][0]["cpu_runs_s"]
    assert runs in [e["cpu_runs_s"] for e in _leaderboard(graded)["ranked"]]


@pytest.mark.slow  # grades for real: compilers and the sandbox
def test_nothing_is_timed_when_no_program_passes(tmp_path, capsys):
    klass = tmp_path / "class"
    (klass / "bob").mkdir(parents=True)
    (klass / "bob" / "puzzlesolver.py").write_text("print('hello')\n")
    manifest = manifest_subset(tmp_path / "cases", ("timed-2-letters-a",))
    args = ["--manifest", str(manifest)]
    results = str(tmp_path / "results")
    assert grader_main(args + ["grade", str(klass), "--results", results]) == 0
    draw = draw_of(manifest, tmp_path / "draw.json")
    command = ["leaderboard", "--results", results, "--puzzles", str(draw), BUSY_OK]
    assert grader_main(args + command) == 0
    doc = json.loads((tmp_path / "results" / "leaderboard.json").read_text())
    assert doc["ranked"] == [] and doc["startup"] == []
    assert doc["not_eligible"] == [{"id": "bob", "language": "python", "reason": "WA on 1 case"}]
    assert "no program can be ranked yet" in capsys.readouterr().out
    with sqlite3.connect(tmp_path / "results" / "grader.db") as db:
        assert db.execute("SELECT COUNT(*) FROM timings").fetchone() == (0,)


@pytest.mark.slow
def test_a_busy_machine_is_refused_before_any_timing_unless_told(graded, capsys, monkeypatch):
    """One busy loop per core beside it: the leaderboard says how busy, times nothing
    (no timing stored, no session) and names the option, and nothing else: not what its
    calibration of the cores found on a machine that busy (here, as it may find there,
    a core slower than the others)."""
    from grader import leaderboard as lb

    calibrate = lb.calibrate

    def a_core_left_out(allowed, rule):
        found = calibrate(allowed, rule)
        return dataclasses.replace(found, used=found.used[1:] or found.used)

    monkeypatch.setattr(lb, "calibrate", a_core_left_out)
    hogs = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
        for _ in range(os.cpu_count() or 1)
    ]
    try:
        draw = _draw(graded, seed=77)
        before = _timings(graded)
        command = ["leaderboard", "--results", str(graded["results"]), "--puzzles", str(draw)]
        capsys.readouterr()
        code = grader_main(graded["args"] + command)
        err = capsys.readouterr().err
        assert code == 2, err
        assert "this machine is busy" in err and "--busy-ok" in err and "cores" in err
        assert len(err.strip().splitlines()) == 1, err
        assert _timings(graded) == before
        code = grader_main(graded["args"] + [*command, "--force-remeasure"])
        assert code == 2 and _timings(graded) == before  # nothing forgotten either
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


@pytest.mark.slow
def test_a_core_left_out_at_the_start_joins_and_the_pages_say_when(graded, capsys, monkeypatch):
    """The calibration leaves a core out (as a virtual machine's busy host can make it
    look slower for seconds); a new look while the other core times finds it agreeing
    (the second look, here), and from then on it times runs too: the terminal, the JSON
    and the page say when, and the stored runs keep that core."""
    from grader.leaderboard import cores, measuring, quiet

    allowed = lb.allowed_cores()
    assert len(allowed) >= 2, "this machine kind has 2 cores"
    kept, left = allowed[-1], allowed[0]

    def a_core_left_out(cores_, rule):
        seconds = {core: 0.010 if core == kept else 0.0155 for core in cores_}
        return cores.Calibration(seconds, (kept,), (0.010,) * 7)

    looks = iter([[0.0155] * 7])  # slower than the calibration's fastest (0.010): waits
    # A quiet machine, whatever runs beside the suite: a busy one times on one core only.
    monkeypatch.setattr(quiet.Looking, "finish", lambda self: quiet.Load(0.0, len(allowed)))
    monkeypatch.setattr(lb, "calibrate", a_core_left_out)
    monkeypatch.setattr(cores, "look", lambda core: next(looks, [0.010] * 7))
    monkeypatch.setattr(measuring, "JOIN_RETRY_SECONDS", 0.05)
    monkeypatch.setattr(measuring, "LOOK_EVERY_SECONDS", 600)  # once in, not looked at again
    # Four runs, no warm-up: the looks are what is tested, not the race (none: too few runs).
    course = graded["course"].with_name("course-4-runs.toml")
    course.write_text("[leaderboard]\nruns = 4\nwarmup = 0\n")
    args = ["--course", str(course), "--manifest", str(graded["manifest"]), "leaderboard"]
    args += ["--results", str(graded["results"]), "--puzzles", str(_draw(graded, 61)), BUSY_OK]
    capsys.readouterr()
    assert grader_main(args) == 0
    doc = json.loads((graded["results"] / "leaderboard.json").read_text())
    assert_valid(doc, "leaderboard")
    out, err = capsys.readouterr()
    assert f"core(s) {left} left out of the timing for now" in err
    assert f"core {left} timed only while its latest look agreed: from " in out
    assert "s to the end" in out
    reference = {c["core"]: c for c in doc["machine"]["core_reference_s"]}
    [span] = reference[left]["timed_s"]
    assert reference[left]["used"] and span["from"] >= 0.05 and span["to"] is None
    assert "timed_s" not in reference[kept]
    assert sorted(doc["machine"]["timing_cores"]) == sorted({kept, left})
    shown = (graded["results"] / "leaderboard.md").read_text()
    assert f"core {left} timed only while its latest look at the reference work" in shown


def _timings(graded) -> int:
    with contextlib.closing(sqlite3.connect(graded["results"] / "grader.db")) as db:
        return db.execute("SELECT COUNT(*) FROM timings").fetchone()[0]


def _stat(path: Path, idle: int, busy: int, cores: int = 2) -> Path:
    lines = [f"cpu  {busy} 0 0 {idle} 0 0 0 0 0 0"]
    lines += [f"cpu{i} 0 0 0 0 0 0 0 0 0 0" for i in range(cores)]
    path.write_text("\n".join(lines + ["intr 1 2 3"]) + "\n")
    return path


@pytest.mark.fast
def test_the_look_reads_the_kernels_counters(tmp_path, monkeypatch):
    from grader.leaderboard import quiet

    stat = tmp_path / "stat"
    counters = iter([(100, 100), (150, 250)])  # 200 jiffies: 150 busy, 50 idle

    def sleep(seconds):
        _stat(stat, *next(counters))

    _stat(stat, *next(counters))
    monkeypatch.setattr(quiet.time, "sleep", sleep)
    own = [2.0, 2.0]  # the grader's own CPU seconds: none spent during the look
    monkeypatch.setattr(quiet, "_own_cpu", lambda: own.pop(0) if len(own) > 1 else own[0])
    load = quiet.look(stat=stat)
    assert load == quiet.Load(busy_cores=1.5, cores=2) and load.busy and load.free_cores == 0
    # The grader's own work while the look lasts (preparing the session) is not other
    # work's: 0.5 s of it (50 jiffies at 100 a second) leaves 100 busy jiffies of 200.
    counters = iter([(100, 100), (150, 250)])
    _stat(stat, *next(counters))
    own[:] = [2.0, 2.0 + 50 / quiet._TICKS]
    assert quiet.look(stat=stat) == quiet.Load(busy_cores=1.0, cores=2)
    assert quiet.Load(busy_cores=0.3, cores=2).free_cores == 2
    assert not quiet.Load(busy_cores=0.9, cores=2).busy
    assert quiet.look(stat=tmp_path / "none") is None
    with pytest.raises(quiet.MachineBusy, match="1.5 of its 2 cores.*--busy-ok"):
        quiet.refuse_if_busy(load, go_on=False)
    assert "timing anyway" in quiet.refuse_if_busy(load, go_on=True)
    assert quiet.refuse_if_busy(quiet.Load(0.2, 2), go_on=False) is None
    assert "cannot tell" in quiet.refuse_if_busy(None, go_on=False)
