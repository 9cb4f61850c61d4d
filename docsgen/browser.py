"""Headless Chromium as the project runs it, for the pages people open: the docs'
pictures, and pa11y's WCAG 2.1 AA check (a11y/check.js) of the docs and of the
grader's own pages (tests/test_accessibility.py)."""

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parent.parent
A11Y_CHECK = ROOT / "a11y" / "check.js"
# No network of its own: this machine's closed network refuses Chromium's background
# connections, many at a time.
HEADLESS_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def chromium() -> str | None:
    """The installed Chromium (the Debian package, or Google's), or None."""
    return next(
        filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None
    )


def pa11y_errors(pages: list[Path], browser: str) -> list[dict[str, Any]]:
    """pa11y's errors on each page, in one run of `browser`: [{"file", "errors"}].
    RuntimeError with pa11y's own words where it could not check them."""
    done = subprocess.run(
        ["node", str(A11Y_CHECK), *map(str, pages)],
        capture_output=True,
        text=True,
        timeout=1800,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "CHROMIUM": browser,
             "HOME": str(pages[0].parent)},
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"pa11y failed: {done.stderr.strip()[-500:]}")
    return cast("list[dict[str, Any]]", json.loads(done.stdout))
