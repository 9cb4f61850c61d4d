"""MkDocs hooks (mkdocs.yml `hooks:`): the reference pages are added while the site is
built, generated from the code (docsgen.reference), never written into docs/."""

from mkdocs.structure.files import File, Files

from docsgen import reference


def on_files(files: Files, config) -> Files:
    for path, name in reference.PAGES.items():
        files.append(File.generated(config, path, content=reference.page(name)))
    return files
