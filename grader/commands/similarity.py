"""`grader similarity OUT.html`: every pair of submissions ranked by similarity into one
page (grader/grading/similarity.py compares, grader/results/similarity_html.py draws), written
atomically."""

import argparse
import time
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from grader.core.atomic import write_file
from grader.core.errors import UsageError
from grader.course.config import load_config
from grader.grading.similarity import similarity_report
from grader.results.similarity_html import render


def add_parser(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    similar = sub.add_parser(
        "similarity",
        help="rank every pair of submissions by similarity "
        "(copydetect) into one HTML page (instructors)",
    )
    similar.add_argument("out", type=Path, metavar="OUT.html")
    similar.add_argument(
        "--submissions",
        type=Path,
        default=Path("submissions"),
        help="the class folder (default: %(default)s)",
    )
    similar.add_argument(
        "--base",
        type=Path,
        metavar="STARTER_DIR",
        help="starter or hand-out code: matches with it are ignored",
    )
    similar.add_argument(
        "--top", type=int, default=40, help="pairs shown side by side (default: %(default)s)"
    )
    similar.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.top < 0:
        raise UsageError(f"--top must not be negative, not {args.top}")
    config = load_config(args.course)
    began = time.perf_counter()
    result = similarity_report(args.submissions, config, args.base)
    generated = datetime.now(timezone.utc).isoformat(timespec="seconds")
    write_file(
        args.out, render(result, generated=generated, shown=args.top, copydetect_version=_version())
    )
    best = result.pairs[0] if result.pairs else None
    top = f"; most similar: {best.left.id} and {best.right.id} ({best.score:.0%})" if best else ""
    print(
        f"{args.out}: {len(result.documents)} submissions, {len(result.pairs)} pairs in "
        f"{time.perf_counter() - began:.1f} s{top}"
    )
    return 0


def _version() -> str:
    try:
        return version("copydetect")
    except PackageNotFoundError:
        return "?"
