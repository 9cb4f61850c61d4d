"""Every page of the built site through pa11y (a11y/check.js: axe-core and
HTML_CodeSniffer, WCAG 2.1 AA), as the grader's own pages are checked:

    python -m docsgen.accessibility site

Exit status 1, with each error, where a page has one."""

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHECK = ROOT / "a11y" / "check.js"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="the built site (site/)")
    args = parser.parse_args(argv)
    pages = sorted(p for p in args.site.rglob("*.html") if p.name != "404.html")
    browser = next(filter(None, map(shutil.which, ("chromium", "chromium-browser"))), None)
    if not pages or browser is None or not (ROOT / "a11y" / "node_modules").is_dir():
        print(
            "accessibility: needs the built site, Chromium and pa11y (make setup)", file=sys.stderr
        )
        return 1
    done = subprocess.run(
        ["node", str(CHECK), *map(str, pages)],
        capture_output=True, text=True, timeout=1800,
        env={**os.environ, "CHROMIUM": browser},
    )  # fmt: skip
    if done.returncode != 0:
        print(f"accessibility: pa11y failed: {done.stderr.strip()[-500:]}", file=sys.stderr)
        return 1
    failing = [page for page in json.loads(done.stdout) if page["errors"]]
    for page in failing:
        for error in page["errors"]:
            print(f"{page['file']}: {error['runner']} {error['code']}: {error['message']} "
                  f"({error['selector']})")  # fmt: skip
    print(f"accessibility: {len(pages)} pages, {len(failing)} with errors (WCAG 2.1 AA)")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
