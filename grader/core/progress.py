"""Where long work stands, on a terminal only: one line on stderr with what it is on,
done/total, the time taken and the time left. Piped or redirected, nothing is drawn and
the output stays the plain table.

tqdm, not rich: the grader needs it already (one small pure-Python package, no
dependencies of its own), it turns itself off when stderr is not a terminal
(``disable=None``), it estimates the time left from the rate so far, and its one line
draws in a Windows console too. Without it (the student kit runs on Python alone)
nothing is drawn at all.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Any, Protocol

from grader.core.text import printable


class Bar(Protocol):
    """What long work tells its bar: what it is on, and that one more unit is done."""

    def on(self, what: str) -> None: ...

    def done(self, count: int = 1) -> None: ...

    def __enter__(self) -> Bar: ...

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None: ...


def progress(total: int | None, what: str, unit: str = "run") -> Bar:
    """A bar for `total` units of `what` (None: a count without a total)."""
    # The bar draws with \r: it writes past the guard that escapes control characters
    # (grader.core.text.PrintableStream), so what it shows is made printable in `on`.
    stream = getattr(sys.stderr, "unguarded", sys.stderr)
    if hasattr(stream, "isatty") and not stream.isatty():
        return _Nothing()  # tqdm's own rule (disable=None), before it costs an import
    try:
        from tqdm import tqdm
    except ImportError:
        return _Nothing()
    bar = tqdm(
        total=total,
        desc=what,
        unit=unit,
        file=stream,
        disable=None,
        dynamic_ncols=True,
        mininterval=0.5,
    )
    return _Tqdm(bar)


class _Nothing:
    """A bar that shows nothing (and the shape every bar has)."""

    def on(self, what: str) -> None:
        return None

    def done(self, count: int = 1) -> None:
        return None

    def close(self) -> None:
        return None

    def __enter__(self) -> Bar:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


class _Tqdm(_Nothing):
    def __init__(self, bar: Any) -> None:  # tqdm's class: its stubs are not installed
        self._bar = bar

    def on(self, what: str) -> None:
        self._bar.set_postfix_str(printable(what), refresh=False)

    def done(self, count: int = 1) -> None:
        self._bar.update(count)

    def close(self) -> None:
        self._bar.close()
