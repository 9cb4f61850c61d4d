"""The shell of every self-contained page the grader writes (feedback pages, the
similarity report): no script, no request, nothing a student's text can turn into
markup. The title is escaped here; the body is the caller's, already escaped."""

import html

from grader.text import printable

# Styles inline, pictures as data: URLs, nothing else: a page works opened from disk
# and a student's name or output can never load or run anything.
CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
    "form-action 'none'"
)


def page(title: str, body: str, style: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f'<link rel="icon" href="data:,">\n<title>{html.escape(printable(title))}</title>\n'
        f"<style>{style}</style></head>\n<body>\n{body}\n</body></html>\n"
    )
