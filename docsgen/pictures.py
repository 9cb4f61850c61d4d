"""The documentation's pictures, made from the example class by headless Chromium:

    python -m docsgen.pictures build/pictures

grades the example class (submissions/) on every shipped case under the project's
course.toml, as `make grade` does, then takes a picture of a student's feedback page,
of the published leaderboard, of `grade`'s table and of `check`'s screen. Each picture
is what the grader really shows today: `make docs` makes them outside the tracked tree
and the site build takes them in (docsgen.hooks), so a build never rewrites a file of
the repository."""

import argparse
import contextlib
import html
import io
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from docsgen.browser import HEADLESS_FLAGS, ROOT, chromium
from grader import cli as grader_cli
from testcases import cli as testcases_cli
from testcases.manifest import copy_subset

# Limits short enough for a run of the example class in the guides' test.
COURSE = """\
[limits]
cpu_seconds = 2
wall_seconds = 4

[leaderboard]
runs = 4
"""
STUDENT = "no-blank-line"  # whose feedback page is shown: a failure with its cause
HEADLESS = (*HEADLESS_FLAGS, "--hide-scrollbars", "--force-device-scale-factor=1")
TERMINAL_CSS = (
    "body{margin:0;background:#1e1e1e}pre{margin:0;padding:16px;color:#e6e6e6;"
    "font:14px/1.35 'DejaVu Sans Mono',monospace;white-space:pre}"
)


class PictureError(Exception):
    """A picture could not be made; str() says which and why."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the folder of the pictures (build/pictures)")
    args = parser.parse_args(argv)
    try:
        made = make_pictures(args.out)
    except PictureError as error:
        print(f"pictures: {error}", file=sys.stderr)
        return 1
    print(f"pictures: {', '.join(path.name for path in made)} -> {args.out}")
    return 0


def make_pictures(out: Path) -> list[Path]:
    found = installed_chromium()
    out.mkdir(parents=True, exist_ok=True)
    out = out.resolve()
    with tempfile.TemporaryDirectory(prefix="docs-pictures-") as tmp, inside(Path(tmp)):
        work = Path(".")
        base = setup(work)
        table = run(grader_cli.main, [*base, "grade", str(work / "submissions"), "--results",
                                      str(work / "results"), "--jobs", "2"])  # fmt: skip
        run(grader_cli.main, [*base, "export", "html", str(work / "pages"), "--student",
                              "--results", str(work / "results")])  # fmt: skip
        check = run(grader_cli.main, [*base, "check", str(work / "submissions" / STUDENT)],
                    allowed=(0, 1))  # fmt: skip
        run(testcases_cli.main, ["--manifest", base[3], "draw", "--seed", "1", "-o",
                                 str(work / "draw.json")])  # fmt: skip
        # A picture, not the bonus: a busy machine's figures do for it.
        run(grader_cli.main, [*base, "leaderboard", "--puzzles", str(work / "draw.json"),
                              "--results", str(work / "results"), "--busy-ok"])  # fmt: skip
        pictures = {
            "feedback-page.png": (student_page(work / "pages"), (1100, 1300)),
            "leaderboard.png": (work / "results" / "leaderboard.html", (1100, 900)),
            "grade-table.png": (terminal(work / "table.html", table), (1000, 330)),
            "check-output.png": (terminal(work / "check.html", check), (1240, 470)),
        }
        return [shoot(found, page, out / name, size) for name, (page, size) in pictures.items()]


@contextlib.contextmanager
def inside(folder: Path) -> Iterator[None]:
    """Run from `folder`, so that the commands print the paths a user would see."""
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def setup(work: Path) -> list[str]:
    """The example class in `work`, graded as `make grade` grades it (every shipped case,
    the project's course.toml): the global options."""
    shutil.copytree(ROOT / "submissions", work / "submissions")
    cases = copy_subset(ROOT / "testcases" / "manifest.json", work / "cases" / "manifest.json")
    copy_subset(
        ROOT / "testcases" / "pool" / "manifest.json", work / "cases" / "pool" / "manifest.json"
    )
    shutil.copyfile(ROOT / "course.toml", work / "course.toml")
    return ["--course", "course.toml", "--manifest", str(cases)]  # relative: as a user types


def run(main: Callable[[list[str]], int], argv: list[str], allowed: tuple[int, ...] = (0,)) -> str:
    """A command of ours, in this process: its standard output."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    if code not in allowed:
        raise PictureError(f"{' '.join(argv[4:6])} exited {code}: {err.getvalue().strip()}")
    return out.getvalue()


def student_page(pages: Path) -> Path:
    found = sorted(pages.glob(f"{STUDENT}*.html"))
    if not found:
        raise PictureError(f"no student page of {STUDENT} in {pages}")
    return found[0]


def terminal(path: Path, text: str) -> Path:
    """Text as a terminal shows it, as a page to take a picture of."""
    path.write_text(
        f"<!doctype html><meta charset=utf-8><style>{TERMINAL_CSS}</style>"
        f"<pre>{html.escape(text.rstrip())}</pre>",
        "utf-8",
    )
    return path


def installed_chromium() -> str:
    found = chromium()
    if found is None:
        raise PictureError("no Chromium on the PATH: `make setup` installs it (as root)")
    return found


def shoot(browser: str, page: Path, out: Path, size: tuple[int, int]) -> Path:
    with tempfile.TemporaryDirectory(prefix="docs-chromium-") as profile:
        done = subprocess.run(
            [browser, *HEADLESS, f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}",
             f"--screenshot={out}", page.resolve().as_uri()],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    if done.returncode != 0 or not out.is_file():
        raise PictureError(f"Chromium took no picture of {page.name}: {done.stderr.strip()[-300:]}")
    return out


if __name__ == "__main__":
    sys.exit(main())
