"""The leaderboard as one self-contained HTML page: inline CSS, an inline SVG
plot of every run, no script and nothing fetched from anywhere.

The plot shows every run of every program twice. Left, on one logarithmic
time axis: programs compare with each other, and a grey band reaching to the
language's start-up median shows the part of the time the program can do
nothing about. Right, each run's distance from its program's own median, in
percent, with the noise floor shaded: a spread of 2% is visible there for a
15 ms C program and a 800 ms Java one alike. Runs are dots (outliers red),
medians are bars.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from grader.reports.leaderboard_md import (
    INELIGIBLE_HEADERS,
    METHOD,
    RANKING_HEADERS,
    STARTUP_HEADERS,
    case_rows,
    counted_by,
    ineligible_rows,
    rank_labels,
    ranking_rows,
    seconds,
    settings_line,
    startup_rows,
    winners,
)
from grader.text import shorten

LABEL_WIDTH = 190
TIME_WIDTH = 470
PANEL_GAP = 40
SPREAD_WIDTH = 300
RIGHT_MARGIN = 20
ROW_HEIGHT = 30
TOP_MARGIN = 34
BOTTOM_MARGIN = 46

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2rem auto;
       max-width: 1100px; padding: 0 1rem; color: #1d2330; background: #fff; line-height: 1.45; }
h1 { margin-bottom: .2rem; } h2 { margin-top: 2rem; border-bottom: 1px solid #dde1e8; }
p.meta { color: #5a6272; margin-top: 0; }
table { border-collapse: collapse; margin: .5rem 0 1rem; font-size: .92rem; }
th, td { padding: .3rem .6rem; border-bottom: 1px solid #e4e7ed; text-align: right; }
th { background: #f3f5f9; } td.text, th.text { text-align: left; }
tr.winner td { background: #fff7d6; font-weight: 600; }
.bonus { font-size: 1.05rem; }
svg { max-width: 100%; height: auto; border: 1px solid #e4e7ed; border-radius: 4px; }
svg text { font-family: inherit; font-size: 12px; fill: #1d2330; }
svg .axis text { fill: #5a6272; font-size: 11px; }
svg .grid { stroke: #e9ecf1; } svg .startup { fill: #dfe3ea; }
svg .run { fill: #2f6fdf; fill-opacity: .55; } svg .outlier { fill: #d93025; fill-opacity: .9; }
svg .median { stroke: #10214a; stroke-width: 3; } svg .range { stroke: #8aa3d6; stroke-width: 1.5; }
svg .sep { stroke: #b8bfcc; stroke-dasharray: 4 3; } svg .muted { fill: #6b7384; }
svg .floor { fill: #e3f4e6; } svg text.clipped { fill: #d93025; font-size: 10px; }
td { white-space: nowrap; }
td.text { white-space: normal; overflow-wrap: anywhere; max-width: 30em; text-align: left; }
td.name { max-width: 11em; overflow: hidden; text-overflow: ellipsis; text-align: left; }
ul.method li { margin-bottom: .3rem; }
"""


def html_page(doc: dict) -> str:
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>Speed leaderboard</title>",
        f"<style>{_CSS}</style>",
        "</head>",
        "<body>",
        "<h1>Speed leaderboard</h1>",
        f'<p class="meta">Generated {escape(doc["generated_at"])}. '
        f"{escape(settings_line(doc))}.</p>",
    ]
    parts.append("<h2>Ranking</h2>")
    if doc["ranked"]:
        parts.append(_ranking_table(doc))
        parts.append(
            f'<p class="bonus"><strong>Bonus (rank 1):</strong> '
            f"{escape(', '.join(winners(doc)))}</p>"
        )
        parts.append("<h2>Every run</h2>")
        parts.append(plot(doc))
    else:
        parts.append("<p>No program can be ranked yet.</p>")
    parts.append("<h2>How to read this</h2>")
    parts.append(_method())
    parts.append("<h2>Language start-up cost</h2>")
    parts.append(
        _table(
            STARTUP_HEADERS,
            startup_rows(doc),
            text_columns=1,
            table_id="startup",
        )
    )
    if doc["ranked"]:
        case_ids = [c["id"] for c in doc["settings"]["cases"]]
        parts.append("<h2>Per case (CPU median ± MAD)</h2>")
        parts.append(
            _table(("program", *case_ids), case_rows(doc), text_columns=1, table_id="per-case")
        )
    parts.append("<h2>Not eligible</h2>")
    if doc["not_eligible"]:
        parts.append(
            _table(
                INELIGIBLE_HEADERS,
                ineligible_rows(doc),
                text_columns=3,
                table_id="not-eligible",
            )
        )
    else:
        parts.append("<p>Every graded program passes every case.</p>")
    m = doc["machine"]
    core = m["pinned_core"] if m["pinned_core"] is not None else "none"
    parts.append("<h2>Machine</h2>")
    parts.append(
        f'<p class="meta">{escape(m["cpu_model"])}, {m["cpu_count"]} cores (pinned '
        f"to core {core}), {escape(m['platform'])}, sandbox {escape(m['sandbox'])}"
        f"{escape(counted_by(m))}, "
        f"load average at the start "
        f"{escape(' '.join(str(x) for x in m['load_average']) or 'unknown')}.</p>"
    )
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)


def _cell(value, kind: str) -> str:
    """A table cell: "name" (one line, cut with an ellipsis, whole in its tooltip),
    "text" (wraps) or a number (right-aligned)."""
    text = escape(str(value))
    if kind == "name":
        return f'<td class="name" title="{text}">{text}</td>'
    return f'<td class="{kind}">{text}</td>'


def _ranking_table(doc: dict) -> str:
    kinds = {1: "name", 2: "text"}
    head = "".join(
        f'<th class="{"text" if i in kinds else ""}">{escape(h)}</th>'
        for i, h in enumerate(RANKING_HEADERS)
    )
    body = []
    for row, entry in zip(ranking_rows(doc), doc["ranked"]):
        cells = "".join(_cell(c, kinds.get(i, "")) for i, c in enumerate(row))
        body.append(f'<tr class="{"winner" if entry["winner"] else ""}">{cells}</tr>')
    return (
        f'<table id="ranking"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
    )


def _table(headers: Sequence[str], rows, *, text_columns: int, table_id: str) -> str:
    """The first column holds names; the next text_columns - 1 hold text."""

    def kind(i: int) -> str:
        return "name" if i == 0 else "text" if i < text_columns else ""

    head = "".join(
        f'<th class="{"text" if i < text_columns else ""}">{escape(h)}</th>'
        for i, h in enumerate(headers)
    )
    body = "".join(
        "<tr>" + "".join(_cell(c, kind(i)) for i, c in enumerate(row)) + "</tr>" for row in rows
    )
    return f'<table id="{table_id}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _method() -> str:
    items = "".join(
        f"<li><strong>{escape(title)}</strong>: {escape(text)}</li>" for title, text in METHOD
    )
    return f'<ul class="method">{items}</ul>'


# ------------------------------------------------------------------ the plot


@dataclass(frozen=True)
class _Row:
    label: str
    runs: Sequence[float]
    outliers: Sequence[int]
    median: float
    startup: float | None  # its language's start-up median
    muted: bool  # a start-up program, drawn below the ranked ones


@dataclass(frozen=True)
class _Panel:
    left: float
    width: float
    low: float
    high: float
    log: bool

    def x(self, value: float) -> float:
        value = min(max(value, self.low), self.high)
        if self.log:
            share = math.log(value / self.low) / math.log(self.high / self.low)
        else:
            share = (value - self.low) / (self.high - self.low)
        return self.left + self.width * share


def _rows(doc: dict) -> list[_Row]:
    startup = {s["language"]: s for s in doc["startup"] if s["available"]}
    rows = [
        _Row(
            f"{label}. {e['id']}",
            e["cpu_runs_s"],
            e["cpu_outliers"],
            e["cpu_median_s"],
            startup.get(e["language"], {}).get("cpu_median_s"),
            False,
        )
        for label, e in zip(rank_labels(doc["ranked"]), doc["ranked"])
    ]
    rows += [
        _Row(
            f"start-up: {s['language']}",
            s["cpu_runs_s"],
            s["cpu_outliers"],
            s["cpu_median_s"],
            None,
            True,
        )
        for s in startup.values()
    ]
    return rows


def plot(doc: dict) -> str:
    """Every run of every ranked program (and of each language's start-up
    program, below a dashed line), twice: on one log time axis (left), and as
    its distance from the program's own median (right), where a spread of a
    few percent is visible and the noise floor is drawn."""
    rows = _rows(doc)
    values = [v for row in rows for v in row.runs]
    low, high = min(values), max(values)
    low = max(low, 1e-5)
    times = _Panel(LABEL_WIDTH, TIME_WIDTH, low / 1.25, max(high, low) * 1.25, log=True)
    # The spread panel is scaled to the ordinary runs: an outlier beyond it is drawn at
    # the edge with its value, so one wild run cannot flatten every other spread.
    deviations = [
        v / row.median - 1
        for row in rows
        if row.median > 0
        for i, v in enumerate(row.runs)
        if i not in row.outliers
    ]
    floor = doc["settings"]["noise_floor"]
    reach = min(1.0, max([0.1, 1.5 * floor] + [1.15 * abs(d) for d in deviations]))
    spread = _Panel(LABEL_WIDTH + TIME_WIDTH + PANEL_GAP, SPREAD_WIDTH, -reach, reach, log=False)
    width = spread.left + spread.width + RIGHT_MARGIN
    bottom = TOP_MARGIN + ROW_HEIGHT * len(rows)
    height = bottom + BOTTOM_MARGIN
    out = [
        f'<svg id="runs-plot" xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" '
        f'height="{height}" viewBox="0 0 {width:.0f} {height}" role="img" '
        f'aria-label="CPU time of every run, per program">',
        "<title>CPU time of every run (sum over the timed cases)</title>",
    ]
    out.append(_legend())
    ticks = [
        (t, f"{t * 1000:g} ms" if t < 1 else f"{t:g} s") for t in _log_ticks(times.low, times.high)
    ]
    out.append(
        _axis(times, ticks, bottom, "CPU time per run, sum over the timed cases (log scale)")
    )
    out.append(
        f'<rect class="floor" x="{spread.x(-floor):.1f}" y="{TOP_MARGIN - 6}" '
        f'width="{spread.x(floor) - spread.x(-floor):.1f}" '
        f'height="{bottom - TOP_MARGIN + 6}"><title>noise floor: ±{100 * floor:g}%'
        f"</title></rect>"
    )
    out.append(
        _axis(
            spread,
            [(t, f"{100 * t:+g}%" if t else "0") for t in _linear_ticks(reach)],
            bottom,
            f"run / its median - 1 (shaded: noise floor ±{100 * floor:g}%)",
        )
    )
    for i, row in enumerate(rows):
        y = TOP_MARGIN + ROW_HEIGHT * i + ROW_HEIGHT / 2
        if row.muted and (i == 0 or not rows[i - 1].muted):
            sep = TOP_MARGIN + ROW_HEIGHT * i
            out.append(f'<line class="sep" x1="8" y1="{sep}" x2="{width - 8:.0f}" y2="{sep}"/>')
        out.append(_row(row, y, times, spread))
    out.append("</svg>")
    return "\n".join(out)


def _log_ticks(low: float, high: float) -> list[float]:
    ticks = []
    for exponent in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1):
        for step in (1, 2, 5):
            value = step * 10**exponent
            if low <= value <= high:
                ticks.append(value)
    return ticks


def _linear_ticks(reach: float) -> list[float]:
    step = next(s for s in (0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5) if reach / s <= 4)
    count = int(reach / step + 1e-9)
    return [k * step for k in range(-count, count + 1)]


def _axis(panel: _Panel, ticks, bottom: float, title: str) -> str:
    out = ['<g class="axis">']
    for value, text in ticks:
        tx = panel.x(value)
        out.append(
            f'<line class="grid" x1="{tx:.1f}" y1="{TOP_MARGIN - 6}" x2="{tx:.1f}" y2="{bottom}"/>'
        )
        out.append(
            f'<text x="{tx:.1f}" y="{bottom + 16}" text-anchor="middle">{escape(text)}</text>'
        )
    out.append(
        f'<text x="{panel.left + panel.width / 2:.0f}" y="{bottom + 36}" '
        f'text-anchor="middle">{escape(title)}</text></g>'
    )
    return "".join(out)


def _legend() -> str:
    y = 16
    x0 = LABEL_WIDTH
    return (
        f'<g class="legend"><circle class="run" cx="{x0}" cy="{y}" r="4"/>'
        f'<text x="{x0 + 8}" y="{y + 4}">one run</text>'
        f'<circle class="outlier" cx="{x0 + 80}" cy="{y}" r="4"/>'
        f'<text x="{x0 + 88}" y="{y + 4}">outlier</text>'
        f'<line class="median" x1="{x0 + 150}" y1="{y - 7}" x2="{x0 + 150}" y2="{y + 7}"/>'
        f'<text x="{x0 + 157}" y="{y + 4}">median</text>'
        f'<rect class="startup" x="{x0 + 220}" y="{y - 6}" width="22" height="12"/>'
        f'<text x="{x0 + 248}" y="{y + 4}">its language\'s start-up (median)</text></g>'
    )


def _row(row: _Row, y: float, times: _Panel, spread: _Panel) -> str:
    base = f", language start-up {seconds(row.startup)}" if row.startup else ""
    parts = [
        f'<g class="program"><title>{escape(row.label)}: median '
        f"{escape(seconds(row.median))}{escape(base)}</title>"
    ]
    if row.startup:
        parts.append(
            f'<rect class="startup" x="{times.left}" y="{y - 9:.1f}" '
            f'width="{max(0.0, times.x(row.startup) - times.left):.1f}" height="18"/>'
        )
    style = ' class="muted"' if row.muted else ""
    parts.append(
        f'<text x="{LABEL_WIDTH - 10}" y="{y + 4:.1f}" text-anchor="end"{style}>'
        f"{escape(shorten(row.label, 26))}</text>"
    )
    for panel, values, centre in (
        (times, row.runs, row.median),
        (spread, [v / row.median - 1 if row.median else 0.0 for v in row.runs], 0.0),
    ):
        parts.append(
            f'<line class="range" x1="{panel.x(min(values)):.1f}" y1="{y:.1f}" '
            f'x2="{panel.x(max(values)):.1f}" y2="{y:.1f}"/>'
        )
        for index, (value, time) in enumerate(zip(values, row.runs)):
            kind = "outlier" if index in row.outliers else "run"
            jitter = ((index * 7) % 5 - 2) * 1.6  # keeps equal runs from hiding each other
            parts.append(
                f'<circle class="{kind}" cx="{panel.x(value):.1f}" '
                f'cy="{y + jitter:.1f}" r="3.6"><title>run {index + 1}: '
                f"{escape(seconds(time))}</title></circle>"
            )
            if not panel.low <= value <= panel.high:  # clipped: say how far off it is
                anchor = "end" if value > 0 else "start"
                shift = -6 if value > 0 else 6
                parts.append(
                    f'<text class="clipped" x="{panel.x(value) + shift:.1f}" '
                    f'y="{y - 5:.1f}" text-anchor="{anchor}">'
                    f"{100 * value:+.0f}%</text>"
                )
        parts.append(
            f'<line class="median" x1="{panel.x(centre):.1f}" y1="{y - 10:.1f}" '
            f'x2="{panel.x(centre):.1f}" y2="{y + 10:.1f}"/>'
        )
    parts.append("</g>")
    return "".join(parts)
