"""The leaderboard as a terminal table and as Markdown, drawn from the
leaderboard document (grader.leaderboard.document), never from the database:
whatever a page shows, leaderboard.json holds too."""

import copy
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from grader.core.model import CpuAccounting
from grader.core.text import printable
from grader.statistics.timing import RESOLUTION_S

RANKING_HEADERS = (
    "rank",
    "program",
    "language",
    "CPU median",
    "CPU min-max",
    "MAD",
    "outliers",
    "language start-up",
    "beyond start-up",
    "wall median",
    "timed runs",
)
STARTUP_HEADERS = ("language", "CPU median", "CPU min-max", "wall median", "timed runs")
INELIGIBLE_HEADERS = ("program", "language", "reason")


def counted_by(machine: dict[str, Any]) -> str:
    """What counted the CPU time of every timed run, for the machine line."""
    try:
        explained = CpuAccounting(machine.get("cpu_accounting", "")).explained
    except ValueError:  # a document from before it was recorded
        return ""
    return f" (CPU time counted by {explained})"


def seconds(value: float | None) -> str:
    """A time in the unit that suits it: these span 1 ms to several seconds."""
    if value is None:
        return "-"
    sign = "-" if value < 0 else ""
    value = abs(value)
    if value < 0.01:
        return f"{sign}{value * 1000:.2f} ms"
    if value < 1:
        return f"{sign}{value * 1000:.1f} ms"
    return f"{sign}{value:.3f} s"


def percent(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def rank_labels(entries: Sequence[dict[str, Any]]) -> list[str]:
    """ "1", or "=1" when the rank is shared (a tie)."""
    counts: dict[int, int] = {}
    for entry in entries:
        counts[entry["rank"]] = counts.get(entry["rank"], 0) + 1
    return [("=" if counts[e["rank"]] > 1 else "") + str(e["rank"]) for e in entries]


def timed_runs(entry: dict[str, Any], runs: int) -> str:
    """How many runs a program's figures hold ("Timed runs" in METHOD says why fewer)."""
    if not entry["stopped_early"]:
        return str(entry["timed_runs"])
    return f"{entry['timed_runs']} of {runs}, stopped"


def ranking_rows(doc: dict[str, Any]) -> list[tuple[str | int, ...]]:
    entries = doc["ranked"]
    runs = doc["settings"]["runs"]
    return [
        (
            label,
            e["id"] + (" *" if e["winner"] else ""),
            e["language"],
            seconds(e["cpu_median_s"]),
            f"{seconds(e['cpu_min_s'])} - {seconds(e['cpu_max_s'])}",
            f"{seconds(e['cpu_mad_s'])} ({percent(e['cpu_mad_s'], e['cpu_median_s'])})",
            len(e["cpu_outliers"]) or "",
            seconds(e["startup_cpu_median_s"]),
            seconds(e["beyond_startup_cpu_s"]),
            seconds(e["wall_median_s"]),
            timed_runs(e, runs),
        )
        for label, e in zip(rank_labels(entries), entries)
    ]


def startup_rows(doc: dict[str, Any]) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    runs = doc["settings"]["runs"]
    for s in doc["startup"]:
        if s["available"]:
            rows.append(
                (
                    s["language"],
                    seconds(s["cpu_median_s"]),
                    f"{seconds(s['cpu_min_s'])} - {seconds(s['cpu_max_s'])}",
                    seconds(s["wall_median_s"]),
                    timed_runs(s, runs),
                )
            )
        else:
            rows.append((s["language"], "-", s["reason"], "-", "-"))
    return rows


def case_rows(doc: dict[str, Any]) -> list[tuple[str, ...]]:
    return [
        (
            e["id"],
            *(f"{seconds(c['cpu_median_s'])} ± {seconds(c['cpu_mad_s'])}" for c in e["cases"]),
        )
        for e in doc["ranked"]
    ]


def ineligible_rows(doc: dict[str, Any]) -> list[tuple[str, ...]]:
    return [(e["id"], e["language"], e["reason"]) for e in doc["not_eligible"]]


def winners(doc: dict[str, Any]) -> list[str]:
    return [e["id"] for e in doc["ranked"] if e["winner"]]


def settings_line(doc: dict[str, Any]) -> str:
    s = doc["settings"]
    cases = ", ".join(c["id"] for c in s["cases"])
    return (
        f"{s['runs']} timed runs per program and case after {s['warmup']} warm-up "
        f"run(s), {how_timed(doc)}; cases: {cases}; "
        f"noise floor {100 * s['noise_floor']:g}%, alpha {s['alpha']:g}; rank test: {s['test']}"
    )


def _timed_while(where: str, core: dict[str, Any], fastest: str) -> str:
    """'; core 0 timed only while ...: from 0 s to 2.3 s, ...' for a core that did
    not time the whole session; '' for one that did."""
    if "timed_s" not in core:
        return ""
    return (
        f"; {where} timed only while its latest look at the reference work agreed with "
        f"{fastest}: {when_timed(core['timed_s'])}"
    )


def when_timed(spans: list[dict[str, Any]]) -> str:
    """'from 0.1 s to 2.3 s, from 4 s to the end' (leaderboard.json's timed_s), or
    'never'."""
    return (
        ", ".join(
            f"from {span['from']:g} s to "
            + ("the end" if span["to"] is None else f"{span['to']:g} s")
            for span in spans
        )
        or "never"
    )


def cluster_line(m: dict[str, Any]) -> str:
    """The cluster's workers the timings come from, in a sentence."""
    workers = "; ".join(
        f"{w['host'] or 'host not surveyed'} ({w['worker']}): "
        f"core(s) {', '.join(str(c) for c in w['cores'])}"
        for w in m["timing_workers"]
    )
    left = [f"{c.get('host', '')} core {c['core']}" for c in m["core_reference_s"] if not c["used"]]
    if left:
        workers += (
            f"; {', '.join(left)} left out: the cluster's fastest core is significantly "
            "faster on the same reference work"
        )
    workers += "".join(
        _timed_while(
            f"{c.get('host', '')} core {c['core']}", c, "the cluster's fastest core's latest"
        )
        for c in m["core_reference_s"]
    )
    return f"Timed on a Dask cluster's workers: {workers}; sandbox {m['sandbox']}{counted_by(m)}."


def how_timed(doc: dict[str, Any]) -> str:
    """One run at a time on one core, or one per core at once, and whether it raced."""
    cores, workers = doc["machine"]["timing_cores"], doc["machine"]["timing_workers"]
    where = (
        f"one run per core at once on {sum(len(w['cores']) for w in workers)} core(s) of "
        f"{len(workers)} cluster worker(s)"
        if workers
        else f"one run per core at once on cores {', '.join(str(c) for c in cores)}"
        if len(cores) > 1
        else "one at a time, pinned to one core"
        if cores
        else "one at a time"
    )
    if doc["settings"]["exhaustive"]:
        return f"{where}, every program timed fully"
    return (
        f"{where}; racing: a program whose runs show it slower than every program "
        "ranked 1 (the rank test at alpha) is no longer timed"
    )


def machine_line(m: dict[str, Any]) -> str:
    """The machine the timings come from, in a sentence."""
    cores = m["timing_cores"]
    if m["timing_workers"]:
        return cluster_line(m)
    timing = (
        f"timed on cores {', '.join(str(c) for c in cores)}"
        if len(cores) > 1
        else f"pinned to core {cores[0]}"
        if cores
        else "not pinned"
    )
    left = [c["core"] for c in m["core_reference_s"] if not c["used"]]
    if left:
        timing += (
            f"; core(s) {', '.join(str(c) for c in left)} left out: the fastest core is "
            "significantly faster on the same reference work"
        )
    timing += "".join(
        _timed_while(f"core {c['core']}", c, "the fastest core's latest")
        for c in m["core_reference_s"]
    )
    return (
        f"{m['cpu_model']}, {m['cpu_count']} cores ({timing}), {m['platform']}, "
        f"sandbox {m['sandbox']}{counted_by(m)}, load average at the start "
        f"{' '.join(str(x) for x in m['load_average']) or 'unknown'}."
    )


def _names(doc: dict[str, Any], escape: Callable[[str], str]) -> dict[str, Any]:
    """The document with every program name, and every reason a program was not
    ranked, passed through `escape`: names come from students' folder and file names,
    and reasons quote them."""
    doc = copy.deepcopy(doc)
    for entry in doc["ranked"] + doc["not_eligible"]:
        entry["id"] = escape(str(entry["id"]))
    for entry in doc["not_eligible"]:
        entry["reason"] = escape(str(entry["reason"]))
    return doc


def markdown_code(text: str) -> str:
    """Any text as a Markdown code span: inside one, nothing is markup (no HTML, no
    link, no image, no autolink, no emphasis); control characters are shown as
    escapes. In a table cell its | is escaped (_cells: GFM reads \\| as | in a span too)."""
    text = printable(text).replace("\n", " ") or " "
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text[0] == "`" or text[-1] == "`" else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def terminal(doc: dict[str, Any]) -> str:
    from tabulate import tabulate  # here: it costs every command 20 ms to import

    doc = _names(doc, printable)
    parts = []
    if doc["ranked"]:
        parts.append(tabulate(ranking_rows(doc), headers=RANKING_HEADERS, disable_numparse=True))
        parts.append(f"\nbonus (rank 1): {', '.join(winners(doc))}")
    else:
        parts.append("no program can be ranked yet")
    parts.append("\nlanguage start-up (a program that only starts and exits, same cases):")
    parts.append(
        tabulate(
            startup_rows(doc),
            headers=STARTUP_HEADERS,
            disable_numparse=True,
        )
    )
    if doc["not_eligible"]:
        parts.append("\nnot eligible:")
        parts.append(
            tabulate(
                ineligible_rows(doc),
                headers=INELIGIBLE_HEADERS,
                disable_numparse=True,
            )
        )
    parts.append("\n" + settings_line(doc))
    return "\n".join(parts)


METHOD = (
    (
        "Time",
        "CPU time (user + sys of the program's whole process tree), measured in the "
        "grading sandbox with the grading build and run command. A program's figure is the sum "
        "over the timed cases: run i of every case added up gives one total per run; the median "
        "of those totals is shown, with their spread. Wall time is shown, not ranked.",
    ),
    (
        "Ties",
        "two programs are ranked apart only when the rank test (the settings line names it) "
        "over their run "
        "totals says they differ (p < alpha) and their medians differ by more than the noise "
        f"floor and by more than {RESOLUTION_S * 1000:g} ms (what starting a process alone varies by). Rank = 1 + the number of programs significantly faster (directly or through a "
        "chain of such programs). Shared ranks are marked =; everyone ranked 1 (marked *) wins "
        "the bonus.",
    ),
    (
        "Start-up",
        "a program that only starts and exits, in each language, timed the same way "
        'on the same cases. "Beyond start-up" is the median minus its language\'s start-up '
        "median: the program's own work (within the noise, so it can be slightly negative). "
        "It is timed as far as the programs of its language are: when every one of them "
        'was stopped (or failed), it was too ("3 of 7, stopped").',
    ),
    (
        "Timed runs",
        '"3 of 7, stopped": the program\'s first runs showed it slower than every program '
        "ranked 1 (the rank test at alpha), so it was timed no further; its figures are of "
        "the runs it has, and its rank is what they can show. Programs that may still rank "
        "1 are always timed fully.",
    ),
    (
        "Outliers",
        "runs more than 3 x 1.4826 x MAD from the median; flagged, not removed "
        "(the rank test uses ranks, so one wild run barely moves it).",
    ),
)


def _cells(rows: Iterable[Sequence[object]]) -> list[tuple[str, ...]]:
    """Table cells: a | would end the cell and a line break the row."""
    return [tuple(str(cell).replace("|", "\\|").replace("\n", " ") for cell in row) for row in rows]


def markdown(doc: dict[str, Any]) -> str:
    from tabulate import tabulate  # here: it costs every command 20 ms to import

    doc = _names(doc, markdown_code)
    fmt = dict(tablefmt="github", disable_numparse=True)
    lines = ["# Speed leaderboard", ""]
    lines.append(f"Generated {doc['generated_at']}. {settings_line(doc)}.")
    lines.append("")
    lines.append("## Ranking")
    lines.append("")
    if doc["ranked"]:
        lines.append(tabulate(_cells(ranking_rows(doc)), headers=RANKING_HEADERS, **fmt))
        lines.append("")
        lines.append(f"**Bonus (rank 1):** {', '.join(winners(doc))}")
    else:
        lines.append("No program can be ranked yet.")
    lines += ["", "## How to read this", ""]
    lines += [f"- **{title}**: {text}" for title, text in METHOD]
    lines.append("")
    lines += ["## Language start-up cost", ""]
    lines.append(
        tabulate(
            _cells(startup_rows(doc)),
            headers=STARTUP_HEADERS,
            **fmt,
        )
    )
    if doc["ranked"]:
        lines += ["", "## Per case (CPU median ± MAD)", ""]
        case_ids = [c["id"] for c in doc["settings"]["cases"]]
        lines.append(tabulate(_cells(case_rows(doc)), headers=("program", *case_ids), **fmt))
    lines += ["", "## Not eligible", ""]
    if doc["not_eligible"]:
        lines.append(tabulate(_cells(ineligible_rows(doc)), headers=INELIGIBLE_HEADERS, **fmt))
    else:
        lines.append("Every graded program passes every case.")
    lines += ["", "## Machine", "", machine_line(doc["machine"]), ""]
    return "\n".join(lines)
