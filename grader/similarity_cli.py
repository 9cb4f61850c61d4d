"""`grader similarity`: the pairs report, written atomically."""

import time
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version

from grader.atomic import write_file
from grader.config import load_config
from grader.exports.common import ExportError
from grader.reports.similarity_html import render
from grader.similarity import similarity_report


def similarity(args) -> int:
    if args.top < 0:
        raise ExportError(f"--top must not be negative, not {args.top}")
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
