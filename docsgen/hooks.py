"""MkDocs hooks (mkdocs.yml `hooks:`): the reference pages are added while the site is
built, generated from the code (docsgen.reference), never written into docs/; and the
theme's unnamed toggles get a name (WCAG 4.1.2: a form field needs one)."""

import re

from mkdocs.structure.files import File, Files

from docsgen import reference

# The theme's hidden checkboxes that open a panel, and what each opens.
TOGGLES = {"__search": "Search", "__toc": "Table of contents"}


def on_files(files: Files, config) -> Files:
    for path, name in reference.PAGES.items():
        files.append(File.generated(config, path, content=reference.page(name)))
    return files


def on_post_page(output: str, page, config) -> str:
    for toggle, name in TOGGLES.items():
        output = re.sub(
            rf'(<input\b[^>]*\bid="{toggle}")(?![^>]*aria-label)',
            rf'\1 aria-label="{name}"',
            output,
        )
    return output
