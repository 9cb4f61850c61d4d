"""Nothing a student sees carries a hidden input: attacks written for it, handed in
twice (a resubmission, a friend's copy), graded for real, and the student's pages read
as the student reads them. (The Gradescope container's variant, files left where any
user may write, is in tests/test_gradescope_container.py.)"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from grader.cli import main as grader_main
from tests.helpers import ROOT, hidden_inputs

pytestmark = pytest.mark.slow

MANIFEST = ROOT / "testcases" / "manifest.json"
ATTACK = ROOT / "tests" / "hostile" / "page_cache" / "puzzlesolver.c"
MIN_BYTES = (64 + 3 * 256) * 16 * 4096  # one input kept: 256 bits, thrice, one per 16 pages
# Files the suite's own programs read (compilers, runtimes, the browser): their pages
# come and go with other tests, which would only blur the attack.
BUSY = ("jvm", "chromium", "python", "gcc", "libstdc", "node", "perl", "ld-linux", "libc.")


def cache_file(work: Path) -> Path:
    """A large file of the system's that the sandbox shows and nothing reads, on which
    the attack works outside any sandbox (where the kernel caches the file in large
    folios, or something keeps its pages, it would not). Without one, the largest: the
    attack then has no channel to try, and shows nothing anyway."""
    found = []
    for top in ("/usr/lib", "/usr/share"):
        for folder, _, names in os.walk(top):
            for name in names:
                path = os.path.join(folder, name)
                if any(word in path for word in BUSY) or os.path.islink(path):
                    continue
                try:
                    size = os.stat(path).st_size
                except OSError:
                    continue
                if size >= MIN_BYTES and os.access(path, os.R_OK):
                    found.append((size, path))
    if not found:
        pytest.fail("no system file large enough to keep inputs in its page cache")
    found.sort(reverse=True)
    works = (path for _, path in found[:6] if _attack_works(Path(path), work))
    return Path(next(works, found[0][1]))


def _attack_works(file: Path, work: Path) -> bool:
    """Run unsandboxed on one public puzzle, then on another: the second shows the
    first? (Public ones: what the probe leaves in the cache is no hidden input.)"""
    binary = work / "probe"
    source = work / "probe.c"
    source.write_text(ATTACK.read_text().replace("@CACHEFILE@", str(file)))
    subprocess.run(["gcc", "-O2", "-o", binary, source], check=True)
    first, second = (ROOT / "testcases" / "public" / f"{c}.txt" for c in ("sample", "lightbulbs"))
    subprocess.run([binary, first], capture_output=True)
    shown = subprocess.run([binary, second], capture_output=True, text=True).stderr
    return "\n".join(first.read_text().splitlines()[:2]) in shown


def test_a_program_keeping_inputs_in_the_page_cache_shows_no_hidden_one(tmp_path):
    """The first copy runs on every case and keeps each input it sees as cached-or-not
    bits of a big system file; the second copy, graded afterwards, prints what is kept
    on its public cases' error output, which its student page shows. Nothing can be
    read back (the sandbox refuses the calls that read or drop the page cache), so its
    page holds no hidden input."""
    source = ATTACK.read_text().replace("@CACHEFILE@", str(cache_file(tmp_path)))
    for copy in ("first", "second"):
        klass = tmp_path / copy / "class"
        (klass / copy).mkdir(parents=True)
        (klass / copy / "puzzlesolver.c").write_text(source)
        results = tmp_path / copy / "results"
        args = ["--manifest", str(MANIFEST), "grade", str(klass), "--results", str(results)]
        args += ["--jobs", "1"]  # one run after the other: what one keeps, the next finds
        assert grader_main(args) == 0
    pages = tmp_path / "pages"
    export = ["--manifest", str(MANIFEST), "export", "html", str(pages), "--student"]
    assert grader_main([*export, "--results", str(tmp_path / "second" / "results")]) == 0
    page = (pages / "second.html").read_text()
    assert "Input tiles:" in page  # the page shows what the program printed
    shown = page.replace("&#39;", "'")
    leaked = [cid for cid, text in hidden_inputs().items() if text in shown]
    assert leaked == [], leaked
    shutil.rmtree(pages)
