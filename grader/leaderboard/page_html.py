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

import base64
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

from grader.core.text import printable, shorten
from grader.leaderboard.page_md import (
    INELIGIBLE_HEADERS,
    METHOD,
    RANKING_HEADERS,
    STARTUP_HEADERS,
    case_rows,
    ineligible_rows,
    machine_line,
    rank_labels,
    ranking_rows,
    seconds,
    settings_line,
    startup_rows,
    winners,
)
from grader.results.html_page import render

LABEL_WIDTH = 190
TIME_WIDTH = 470
PANEL_GAP = 40
SPREAD_WIDTH = 300
RIGHT_MARGIN = 20
ROW_HEIGHT = 30
TOP_MARGIN = 34
BOTTOM_MARGIN = 46


def html_page(doc: dict[str, Any]) -> str:
    machine = machine_line(doc["machine"])
    ranked = bool(doc["ranked"])
    drawn = plot(doc) if ranked else None
    return render(
        "leaderboard.html",
        title="Speed leaderboard",
        generated=doc["generated_at"],
        settings=settings_line(doc),
        ranking=_table("Ranking", RANKING_HEADERS, ranking_rows(doc), {1: "name", 2: "text"}),
        winner_rows=[entry["winner"] for entry in doc["ranked"]],
        winners=", ".join(winners(doc)),
        plot=drawn,
        plot_title=PLOT_TITLE,
        plot_image=plot_image(drawn) if drawn is not None else "",
        plot_summary=plot_summary(doc) if ranked else "",
        method=METHOD,
        startup=_table("Language start-up cost", STARTUP_HEADERS, startup_rows(doc), {0: "name"}),
        cases=(
            _table(
                "Per case: CPU median and its MAD",
                ("program", *(c["id"] for c in doc["settings"]["cases"])),
                case_rows(doc),
                {0: "name"},
            )
            if ranked
            else None
        ),
        not_eligible=(
            _table(
                "Not eligible",
                INELIGIBLE_HEADERS,
                ineligible_rows(doc),
                {0: "name", 1: "text", 2: "text"},
            )
            if doc["not_eligible"]
            else None
        ),
        machine=machine,
    )


@dataclass(frozen=True)
class Table:
    caption: str  # what the table holds, for a screen reader (the page's heading says it too)
    headers: list[tuple[str, str]]  # (text, kind)
    rows: list[list[tuple[str, str]]]  # cells: (text, kind): "name", "text" or "" (a number)


def _table(
    caption: str,
    headers: Sequence[str],
    rows: Sequence[Sequence[object]],
    kinds: dict[int, str],
) -> Table:
    """The first column names the row (a program or a language); names and text of a
    student's are made printable here and escaped by the template."""
    return Table(
        caption,
        [(h, kinds.get(i, "")) for i, h in enumerate(headers)],
        [[(printable(str(c)), kinds.get(i, "")) for i, c in enumerate(row)] for row in rows],
    )


PLOT_TITLE = "CPU time of every run (sum over the timed cases)"


def plot_svg(drawn: "Plot") -> str:
    """The plot as an SVG document of its own: the page shows it as an image, whose
    text alternative is the page's (its figures are all in the page's tables)."""
    return render("plot.svg", plot=drawn, title=PLOT_TITLE)


def plot_image(drawn: "Plot") -> str:
    """The plot as a data: URL, the only kind of picture the pages' policy allows."""
    return "data:image/svg+xml;base64," + base64.b64encode(plot_svg(drawn).encode()).decode()


def plot_summary(doc: dict[str, Any]) -> str:
    """What the plot shows, in words: its text alternative."""
    ranked = doc["ranked"]
    fastest, slowest = ranked[0], ranked[-1]
    runs = doc["settings"]["runs"]
    return (
        f"The plot shows the CPU time of each of the {runs} timed runs of each of the "
        f"{len(ranked)} ranked programs, on a logarithmic axis (left), and each run's "
        "distance from its program's own median, in percent (right). The fastest program, "
        f"{printable(str(fastest['id']))}, has a median of {seconds(fastest['cpu_median_s'])}; "
        f"the slowest, {printable(str(slowest['id']))}, {seconds(slowest['cpu_median_s'])}. "
        "Every figure drawn is in the tables on this page."
    )


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


def _rows(doc: dict[str, Any]) -> list[_Row]:
    startup = {s["language"]: s for s in doc["startup"] if s["available"]}
    rows = [
        _Row(
            f"{label}. {printable(str(e['id']))}",
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


@dataclass(frozen=True)
class Shape:
    """One SVG element: its tag and attributes (ours), its text and tooltip (escaped by
    the template), and the elements inside it."""

    tag: str
    attrs: tuple[tuple[str, str], ...] = ()
    text: str = ""
    title: str = ""
    children: tuple["Shape", ...] = field(default_factory=tuple)


def _shape(
    tag: str, text: str = "", title: str = "", children: Iterable[Shape] = (), **attrs: float | str
) -> Shape:
    pairs = tuple(
        (name.rstrip("_").replace("_", "-"), _number(value)) for name, value in attrs.items()
    )
    return Shape(tag, pairs, text, title, tuple(children))


def _number(value: float | str) -> str:
    return f"{value:.1f}" if isinstance(value, float) else str(value)


@dataclass(frozen=True)
class Plot:
    width: str
    height: str
    shapes: tuple[Shape, ...]


def plot(doc: dict[str, Any]) -> Plot:
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
    ticks = [
        (t, f"{t * 1000:g} ms" if t < 1 else f"{t:g} s") for t in _log_ticks(times.low, times.high)
    ]
    shapes = [
        _legend(),
        _axis(times, ticks, bottom, "CPU time per run, sum over the timed cases (log scale)"),
        _shape(
            "rect",
            title=f"noise floor: ±{100 * floor:g}%",
            class_="floor",
            x=spread.x(-floor),
            y=TOP_MARGIN - 6,
            width=spread.x(floor) - spread.x(-floor),
            height=bottom - TOP_MARGIN + 6,
        ),
        _axis(
            spread,
            [(t, f"{100 * t:+g}%" if t else "0") for t in _linear_ticks(reach)],
            bottom,
            f"run / its median - 1 (shaded: noise floor ±{100 * floor:g}%)",
        ),
    ]
    for i, row in enumerate(rows):
        y = TOP_MARGIN + ROW_HEIGHT * i + ROW_HEIGHT / 2
        if row.muted and (i == 0 or not rows[i - 1].muted):
            sep = TOP_MARGIN + ROW_HEIGHT * i
            shapes.append(_shape("line", class_="sep", x1=8, y1=sep, x2=f"{width - 8:.0f}", y2=sep))
        shapes.append(_row(row, y, times, spread))
    return Plot(f"{width:.0f}", str(bottom + BOTTOM_MARGIN), tuple(shapes))


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


def _axis(panel: _Panel, ticks: Iterable[tuple[float, str]], bottom: float, title: str) -> Shape:
    parts = []
    for value, text in ticks:
        tx = panel.x(value)
        parts.append(_shape("line", class_="grid", x1=tx, y1=TOP_MARGIN - 6, x2=tx, y2=bottom))
        parts.append(_shape("text", text, x=tx, y=bottom + 16, text_anchor="middle"))
    parts.append(
        _shape(
            "text",
            title,
            x=f"{panel.left + panel.width / 2:.0f}",
            y=bottom + 36,
            text_anchor="middle",
        )
    )
    return _shape("g", children=parts, class_="axis")


def _legend() -> Shape:
    y, x0 = 16, LABEL_WIDTH
    return _shape(
        "g",
        class_="legend",
        children=[
            _shape("circle", class_="run", cx=x0, cy=y, r=4),
            _shape("text", "one run", x=x0 + 8, y=y + 4),
            _shape("circle", class_="outlier", cx=x0 + 80, cy=y, r=4),
            _shape("text", "outlier", x=x0 + 88, y=y + 4),
            _shape("line", class_="median", x1=x0 + 150, y1=y - 7, x2=x0 + 150, y2=y + 7),
            _shape("text", "median", x=x0 + 157, y=y + 4),
            _shape("rect", class_="startup", x=x0 + 220, y=y - 6, width=22, height=12),
            _shape("text", "its language's start-up (median)", x=x0 + 248, y=y + 4),
        ],
    )


class _Label(TypedDict, total=False):
    """The attributes a row's label may add (for the type checker: the keys of `**label`
    in _row are _shape's attributes, none of its other parameters)."""

    class_: str


def _row(row: _Row, y: float, times: _Panel, spread: _Panel) -> Shape:
    base = f", language start-up {seconds(row.startup)}" if row.startup else ""
    parts = []
    if row.startup:
        parts.append(
            _shape(
                "rect",
                class_="startup",
                x=times.left,
                y=y - 9,
                width=max(0.0, times.x(row.startup) - times.left),
                height=18,
            )
        )
    label: _Label = {"class_": "muted"} if row.muted else {}
    parts.append(
        _shape(
            "text", shorten(row.label, 26), x=LABEL_WIDTH - 10, y=y + 4, text_anchor="end", **label
        )
    )
    for panel, values, centre in (
        (times, row.runs, row.median),
        (spread, [v / row.median - 1 if row.median else 0.0 for v in row.runs], 0.0),
    ):
        parts.append(
            _shape(
                "line", class_="range", x1=panel.x(min(values)), y1=y, x2=panel.x(max(values)), y2=y
            )
        )
        for index, (value, time) in enumerate(zip(values, row.runs)):
            kind = "outlier" if index in row.outliers else "run"
            jitter = ((index * 7) % 5 - 2) * 1.6  # keeps equal runs from hiding each other
            parts.append(
                _shape(
                    "circle",
                    title=f"run {index + 1}: {seconds(time)}",
                    class_=kind,
                    cx=panel.x(value),
                    cy=y + jitter,
                    r=3.6,
                )
            )
            if not panel.low <= value <= panel.high:  # clipped: say how far off it is
                parts.append(
                    _shape(
                        "text",
                        f"{100 * value:+.0f}%",
                        class_="clipped",
                        x=panel.x(value) + (-6 if value > 0 else 6),
                        y=y - 5,
                        text_anchor="end" if value > 0 else "start",
                    )
                )
        parts.append(
            _shape(
                "line",
                class_="median",
                x1=panel.x(centre),
                y1=y - 10,
                x2=panel.x(centre),
                y2=y + 10,
            )
        )
    return _shape(
        "g",
        title=f"{row.label}: median {seconds(row.median)}{base}",
        class_="program",
        children=parts,
    )
