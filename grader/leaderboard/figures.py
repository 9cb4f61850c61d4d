"""The leaderboard as JSON-ready data: what leaderboard.json holds and every other
format shows."""

from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from grader import __version__
from grader.leaderboard.standings import Standings, Timed
from grader.statistics.timing import RESOLUTION_S, Summary

# What a program's figure is (shown with every leaderboard, and kept with its session).
STATISTIC = (
    "CPU time (user + sys of the process tree), run i of every timed case summed: one total per run"
)


def document(
    board: Standings,
    machine: dict[str, Any],
    name: Callable[[str], str] = lambda sid: sid,
    anonymized: bool = False,
    exhaustive: bool = True,
) -> dict[str, Any]:
    """The leaderboard as JSON-ready data: what leaderboard.json holds and every
    other format shows."""
    settings = board.config.leaderboard
    runs, test = settings.runs, settings.rule.test
    startup = board.startups
    stamps = [t.first_run for _, t in board.ranked] + [t.last_run for _, t in board.ranked]
    stamps = [s for s in stamps if s]
    return {
        "generated_at": _iso(None),
        "grader_version": __version__,
        "anonymized": anonymized,
        "measured": {
            "first_run": _iso(min(stamps)) if stamps else None,
            "last_run": _iso(max(stamps)) if stamps else None,
        },
        "settings": {
            "runs": runs,
            "warmup": settings.warmup,
            "cases": [{"id": c.id, "version": c.version} for c in board.session.cases],
            "noise_floor": settings.noise_floor,
            "alpha": settings.alpha,
            "statistic": STATISTIC,
            "test": test.describe(runs, runs),
            "rank_test": test.name,
            "rank_rule": "rank = 1 + number of programs significantly faster (p < alpha and "
            f"medians more than noise_floor and more than {RESOLUTION_S * 1000:g} "
            "ms) apart, closed under chains)",
            "smallest_p_value": test.smallest_p_value(runs, runs),
            "exhaustive": exhaustive,
        },
        "machine": machine,
        "startup": [_startup_entry(lang, t, board) for lang, t in sorted(startup.items())]
        + [
            {"language": lang, "available": False, "reason": why}
            for lang, why in sorted(board.session.startup_problems.items())
        ],
        "ranked": [_ranked_entry(rank, t, board, name, startup) for rank, t in board.ranked],
        "not_eligible": sorted(
            (
                {"id": name(i.id), "language": i.language, "reason": i.reason}
                for i in board.ineligible
            ),
            key=lambda e: e["id"],
        ),
    }


def _iso(stamp: float | None) -> str:
    moment = (
        datetime.now(timezone.utc) if stamp is None else datetime.fromtimestamp(stamp, timezone.utc)
    )
    return moment.isoformat(timespec="seconds")


def _figures(prefix: str, summary: Summary) -> dict[str, float | list[float]]:
    return {
        f"{prefix}_median_s": summary.median,
        f"{prefix}_min_s": summary.minimum,
        f"{prefix}_max_s": summary.maximum,
        f"{prefix}_mad_s": summary.mad,
        f"{prefix}_runs_s": list(summary.runs),
    }


def _startup_entry(language: str, t: Timed, board: Standings) -> dict[str, Any]:
    entry = {"language": language, "available": t.cpu is not None}
    if t.cpu is None:
        entry["reason"] = t.problem or "not measured"
        return entry
    entry.update(_figures("cpu", t.cpu))
    entry.update(
        {
            "timed_runs": t.timed_runs,
            "stopped_early": t.stopped,
            "wall_median_s": t.wall_total.median,
            "cpu_outliers": list(t.cpu.outliers),
            "cases": [_case_entry(cid, t) for cid in _case_ids(board)],
        }
    )
    return entry


def _ranked_entry(
    rank: int, t: Timed, board: Standings, name: Callable[[str], str], startup: dict[str, Timed]
) -> dict[str, Any]:
    language = t.program.language.name
    base = startup.get(language)
    base_cpu = base.cpu.median if base is not None and base.cpu is not None else None
    entry = {
        "id": name(t.program.id),
        "language": language,
        "rank": rank,
        "winner": rank == 1,
        "timed_runs": t.timed_runs,
        "stopped_early": t.stopped,
    }
    cpu, wall = t.cpu_total, t.wall_total  # ranked: completely measured
    entry.update(_figures("cpu", cpu))
    entry["cpu_outliers"] = list(cpu.outliers)
    entry.update(_figures("wall", wall))
    entry.update(
        {
            "startup_cpu_median_s": base_cpu,
            "beyond_startup_cpu_s": None if base_cpu is None else cpu.median - base_cpu,
            "faster_than": [name(other) for other in board.beats.get(t.program.id, [])],
            "cases": [_case_entry(cid, t) for cid in _case_ids(board)],
        }
    )
    return entry


def _case_ids(board: Standings) -> list[str]:
    return [case.id for case in board.session.cases]


def _case_entry(case_id: str, t: Timed) -> dict[str, Any]:
    cpu, wall = t.cpu_cases[case_id], t.wall_cases[case_id]
    entry: dict[str, Any] = {"id": case_id}
    entry.update(_figures("cpu", cpu))
    entry.update({"cpu_outliers": list(cpu.outliers), "wall_median_s": wall.median})
    return entry
