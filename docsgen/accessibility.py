"""Every page of the built site through pa11y (a11y/check.js: axe-core and
HTML_CodeSniffer, WCAG 2.1 AA), as the grader's own pages are checked:

    python -m docsgen.accessibility site

Exit status 1, with each error, where a page has one."""

import argparse
import sys
from pathlib import Path

from docsgen.browser import ROOT, chromium, pa11y_errors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="the built site (site/)")
    args = parser.parse_args(argv)
    pages = sorted(p for p in args.site.rglob("*.html") if p.name != "404.html")
    browser = chromium()
    if not pages or browser is None or not (ROOT / "a11y" / "node_modules").is_dir():
        print(
            "accessibility: needs the built site, Chromium and pa11y (make setup)", file=sys.stderr
        )
        return 1
    try:
        checked = pa11y_errors(pages, browser)
    except RuntimeError as error:
        print(f"accessibility: {error}", file=sys.stderr)
        return 1
    failing = [page for page in checked if page["errors"]]
    for page in failing:
        for issue in page["errors"]:
            print(f"{page['file']}: {issue['runner']} {issue['code']}: {issue['message']} "
                  f"({issue['selector']})")  # fmt: skip
    print(f"accessibility: {len(pages)} pages, {len(failing)} with errors (WCAG 2.1 AA)")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
