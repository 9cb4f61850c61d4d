"""`grader similarity`: copydetect over every pair of the class, starter code left
out, one self-contained page, checked in headless Chromium like the feedback pages."""

import builtins
import io
import keyword
import os
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

from grader.cli import main as grader_main
from grader.course.config import load_config
from grader.grading.similarity import kgram_hashes, similarity_report
from grader.results.similarity_html import marked
from tests.helpers import ROOT, WINDOW, Page, console_messages, needs_chromium, png_summary
from tests.helpers import run_chromium as chromium

EXAMPLES = ROOT / "submissions"
ORIGINAL = (EXAMPLES / "guido-py" / "puzzlesolver.py").read_text()
HOSTILE = 'eve <img src=x onerror=alert(1)> & "co"'

UNRELATED = '''"""Word statistics of a text file: counts, the longest words, a histogram."""
import sys
from collections import Counter


class Histogram:
    def __init__(self, width):
        self.width = width
        self.rows = []

    def add(self, label, count, biggest):
        bar = "#" * max(1, count * self.width // max(1, biggest))
        self.rows.append(f"{label:>12} {bar} {count}")

    def show(self):
        return "\\n".join(self.rows)


def words_of(text):
    cleaned = "".join(ch.lower() if ch.isalpha() else " " for ch in text)
    return [w for w in cleaned.split() if len(w) > 2]


def longest(words, n=5):
    return sorted(set(words), key=lambda w: (-len(w), w))[:n]


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    words = words_of(text)
    counts = Counter(words)
    histogram = Histogram(40)
    top = counts.most_common(10)
    for word, count in top:
        histogram.add(word, count, top[0][1])
    print(f"{len(words)} words, {len(counts)} different")
    print("longest:", ", ".join(longest(words)))
    print(histogram.show())
    total = sum(len(w) for w in words)
    if words:
        print(f"mean length {total / len(words):.2f}")


if __name__ == "__main__":
    main()
'''


PRIMES = """
def sieve(limit):
    flags = [True] * (limit + 1)
    flags[0:2] = [False, False]
    for n in range(2, int(limit ** 0.5) + 1):
        if flags[n]:
            flags[n * n::n] = [False] * len(flags[n * n::n])
    return [n for n, prime in enumerate(flags) if prime]


def twin_pairs(primes):
    return [(p, q) for p, q in zip(primes, primes[1:]) if q - p == 2]


if __name__ == "__main__":
    found = sieve(int(sys.argv[1]))
    print(len(found), "primes;", len(twin_pairs(found)), "twin pairs")
"""


def renamed(source: str) -> str:
    """Every identifier the program chose gets a new name (keywords, builtins and
    attributes after a dot stay): the disguise a copier tries first."""
    names = {}
    out = []
    previous = None
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        text = tok.string
        if (
            tok.type == tokenize.NAME
            and not keyword.iskeyword(text)
            and not hasattr(builtins, text)
            and text not in ("sys", "self")
            and not (previous is not None and previous.string == ".")
        ):
            text = names.setdefault(text, f"thing{len(names)}")
        out.append((tok.type, text))
        previous = tok
    return tokenize.untokenize(out)


def reordered(source: str) -> str:
    """The top-level functions in reverse order."""
    lines = source.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.startswith(("def ", "class "))]
    assert len(starts) >= 3
    head = lines[: starts[0]]
    blocks = [lines[begin:end] for begin, end in zip(starts, starts[1:] + [len(lines)])]
    tail = []  # `if __name__ == "__main__":` stays last
    last = blocks[-1]
    for i, line in enumerate(last):
        if line.startswith("if __name__"):
            blocks[-1], tail = last[:i], last[i:]
            break
    return "".join(head + [line for block in reversed(blocks) for line in block] + tail)


def put(root: Path, sid: str, name: str, source: str) -> None:
    (root / sid).mkdir(parents=True)
    (root / sid / name).write_text(source)


@pytest.fixture(scope="module")
def disguised_class(tmp_path_factory):
    root = tmp_path_factory.mktemp("similar")
    put(root, "original", "puzzlesolver.py", ORIGINAL)
    put(root, HOSTILE, "puzzlesolver.py", renamed(ORIGINAL))
    put(root, "reordered", "puzzlesolver.py", reordered(ORIGINAL))
    put(root, "unrelated", "puzzlesolver.py", UNRELATED)
    for example, name in (
        ("ada-c", "puzzlesolver.c"),
        ("grace-cpp", "puzzlesolver.cpp"),
        ("james-java", "PuzzleSolver.java"),
    ):
        put(root, example, name, (EXAMPLES / example / name).read_text())
    put(root, "nothing", "notes.txt", "no program here\n")
    return root


def test_the_disguises_are_real():
    assert renamed(ORIGINAL) != ORIGINAL and "thing" in renamed(ORIGINAL)
    compile(renamed(ORIGINAL), "renamed", "exec")  # still a program
    compile(reordered(ORIGINAL), "reordered", "exec")
    assert sorted(reordered(ORIGINAL).splitlines()) == sorted(ORIGINAL.splitlines())
    assert reordered(ORIGINAL) != ORIGINAL


def test_copies_rank_above_everything_unrelated(disguised_class):
    report = similarity_report(disguised_class, load_config())
    assert {d.language for d in report.documents} == {"c", "cpp", "java", "python"}
    for document in report.documents:  # every language was tokenised, not read as text
        assert document.fingerprint.filtered_code != document.text, document.id
    copies = {"original", HOSTILE, "reordered"}
    top3 = [{p.left.id, p.right.id} for p in report.pairs[:3]]
    assert all(pair <= copies for pair in top3), top3
    scores = {frozenset((p.left.id, p.right.id)): p for p in report.pairs}
    assert scores[frozenset(("original", HOSTILE))].score >= 0.9
    assert scores[frozenset(("original", "reordered"))].score >= 0.6
    for pair in report.pairs[3:]:
        assert pair.score < 0.3, (pair.left.id, pair.right.id, pair.score)
    unrelated = [p.score for p in report.pairs if "unrelated" in (p.left.id, p.right.id)]
    assert max(unrelated) < 0.15
    assert report.skipped == [("nothing", report.skipped[0][1])]
    assert "notes.txt" in report.skipped[0][1] or "no source" in report.skipped[0][1]


def test_starter_code_is_no_evidence(tmp_path):
    """Two programs that share only the hand-out's helper: similar without --base,
    not with it, and the helper is not marked."""
    helper = ORIGINAL[: ORIGINAL.index("\ndef ", ORIGINAL.index("\ndef ") + 1)]
    assert len(helper) > 400
    starter = tmp_path / "starter"
    starter.mkdir()
    (starter / "puzzlesolver.py").write_text(helper)
    subs = tmp_path / "subs"
    put(subs, "a", "puzzlesolver.py", helper + "\n" + UNRELATED)
    put(subs, "b", "puzzlesolver.py", helper + "\n" + PRIMES)
    without = similarity_report(subs, load_config()).pairs[0]
    with_base = similarity_report(subs, load_config(), base=starter).pairs[0]
    assert without.score > 0.3
    assert with_base.score < 0.1, with_base.score  # one k-gram at the seam may remain
    marked_without = sum(b - a for a, b in without.slices[0])
    marked_with = sum(b - a for a, b in with_base.slices[0])
    assert marked_with < marked_without / 10, (marked_with, marked_without)


def test_the_same_class_scores_the_same_in_every_process():
    """copydetect hashes k-grams with hash(), seeded afresh in every Python process:
    the example class's top pair scored 0.30, 0.33 and 0.35 in three runs. The report
    must not depend on the run."""
    script = (
        "from grader.course.config import load_config\n"
        "from grader.grading.similarity import similarity_report\n"
        "from tests.helpers import ROOT\n"
        "report = similarity_report(ROOT / 'submissions', load_config())\n"
        "print([(p.left.id, p.right.id, p.score, p.tokens) for p in report.pairs])\n"
    )
    seen = {
        subprocess.run(
            [sys.executable, "-c", script],
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(seen) == 1 and "guido-py" in seen.pop()


def test_a_kgram_hash_depends_on_its_characters_alone():
    hashes = kgram_hashes("abcabcX", 3)
    assert len(hashes) == 5 and hashes[0] == hashes[3] and hashes[0] != hashes[1]
    assert hashes[4] != hashes[1] and len(kgram_hashes("ab", 3)) == 0


def test_marked_merges_ranges_into_pieces():
    assert marked("a<b>&c", [(1, 4), (3, 5)]) == [(False, "a"), (True, "<b>&"), (False, "c")]
    assert marked("xy", []) == [(False, "xy")]
    # a range that starts or ends inside a word marks the whole word
    assert marked("if ok: continue;", [(9, 12)]) == [
        (False, "if ok: "),
        (True, "continue"),
        (False, ";"),
    ]
    assert marked("a_b c", [(1, 2)]) == [(True, "a_b"), (False, " c")]


@pytest.fixture(scope="module")
def page(disguised_class, tmp_path_factory):
    out = tmp_path_factory.mktemp("page") / "similarity.html"
    assert (
        grader_main(["similarity", str(out), "--submissions", str(disguised_class), "--top", "5"])
        == 0
    )
    return out


def test_page_is_self_contained_ranked_and_escaped(page):
    parsed = Page(page)
    raw = parsed.raw.decode()
    names = {tag for tag, _ in parsed.tags}
    assert not names & {"script", "iframe", "object", "embed", "img", "form", "base"}
    assert "<img src=x" not in raw and "&lt;img src=x onerror=alert(1)&gt;" in raw
    assert HOSTILE in parsed.all_text  # shown as text
    for _tag, attrs in parsed.tags:
        assert not [a for a in attrs if a.startswith("on")]
        assert "src" not in attrs
        href = attrs.get("href")
        assert href is None or href.startswith("#pair-") or href == "data:,"
    sections = [a["id"] for t, a in parsed.tags if t == "section"]
    assert sections == [f"pair-{i}" for i in range(1, 6)]
    first = raw[raw.index('id="pair-1"') : raw.index('id="pair-2"')]
    assert "<mark>" in first and first.count("<pre>") == 2
    assert "Not compared" in raw and "nothing" in raw


@needs_chromium
def test_page_in_headless_chromium(page, tmp_path):
    dom = chromium(tmp_path, page.as_uri(), "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert console_messages(dom) == []
    assert "<title>Similarity report</title>" in dom.stdout
    assert "<script" not in dom.stdout and "<img" not in dom.stdout
    assert "onerror=alert(1)" in dom.stdout  # as escaped text
    shot = tmp_path / "similarity.png"
    done = chromium(tmp_path, page.as_uri(), f"--screenshot={shot}")
    assert done.returncode == 0 and shot.exists(), done.stderr[-2000:]
    assert console_messages(done) == []
    width, height, distinct = png_summary(shot)
    assert (width, height) == WINDOW and distinct > 50


def test_a_missing_starter_folder_is_one_line(tmp_path, capsys):
    code = grader_main(
        [
            "similarity",
            str(tmp_path / "x.html"),
            "--submissions",
            str(EXAMPLES),
            "--base",
            str(tmp_path / "nope"),
        ]
    )
    assert code == 2
    assert "the starter code folder does not exist" in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists()


def test_a_source_grown_huge_after_discovery_is_skipped_not_read(tmp_path, monkeypatch):
    """discover() bounds what it reads; a file that grows before the fingerprint is
    bounded again (a 64 GB sparse file was a MemoryError that ended the report)."""
    from grader.grading import similarity
    from grader.intake.submissions import discover

    for name in ("amy", "bob"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "puzzlesolver.py").write_text(ORIGINAL)
    found = discover(tmp_path, load_config())
    os.truncate(found[1].source, 64 << 30)  # sparse: no disk, 64 GB to a whole read
    monkeypatch.setattr(similarity, "discover", lambda folder, config: found)
    report = similarity_report(tmp_path, load_config())
    assert [d.id for d in report.documents] == ["amy"]
    assert report.skipped == [
        ("bob", "cannot be read: 68,719,476,736 bytes, more than the limit of 1,048,576")
    ]
