"""MkDocs hooks (mkdocs.yml `hooks:`): the reference pages are added while the site is
built, generated from the code (docsgen.reference), and the pictures docsgen.pictures
made in build/pictures are added as images/ (`make docs` makes them first): neither is
ever written into docs/. The theme's unnamed toggles get a name (WCAG 4.1.2: a form
field needs one)."""

import re
from typing import TYPE_CHECKING

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

from docsgen import reference
from docsgen.browser import ROOT

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.pages import Page

PICTURES = ROOT / "build" / "pictures"
PICTURE_NAMES = ("check-output.png", "feedback-page.png", "grade-table.png", "leaderboard.png")

# The theme's hidden checkboxes that open a panel, and what each opens.
TOGGLES = {"__search": "Search", "__toc": "Table of contents"}


def on_files(files: Files, config: "MkDocsConfig") -> Files:
    for path, name in reference.PAGES.items():
        files.append(File.generated(config, path, content=reference.page(name)))
    missing = [name for name in PICTURE_NAMES if not (PICTURES / name).is_file()]
    if missing:
        raise PluginError(
            f"no {', '.join(missing)} in {PICTURES.relative_to(ROOT)}: make them first "
            f"(python -m docsgen.pictures {PICTURES.relative_to(ROOT)}; `make docs` does)"
        )
    for name in PICTURE_NAMES:
        files.append(File.generated(config, f"images/{name}", abs_src_path=str(PICTURES / name)))
    return files


def on_post_page(output: str, page: "Page", config: "MkDocsConfig") -> str:
    for toggle, name in TOGGLES.items():
        output = re.sub(
            rf'(<input\b[^>]*\bid="{toggle}")(?![^>]*aria-label)',
            rf'\1 aria-label="{name}"',
            output,
        )
    return output
