"""How long `grader similarity` takes on a class of N submissions (default 200).

    .venv/bin/python bench/bench_similarity.py [--students 200] [--seed 1]

The class is made from the example programs in submissions/ (all four languages):
each student gets one of them with 15% of its lines dropped and comment lines
added at random, so no two files are alike (but two students drawn from the same
example are near-copies: a harder class than a real one, where most pairs share
little). Prints the time of fingerprinting, of comparing every pair, of writing
the page, and the page's size.
"""

import argparse
import random
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.course.config import load_config  # noqa: E402
from grader.grading.similarity import Report, compare, fingerprint  # noqa: E402
from grader.grading.similarity import _quiet as quiet  # noqa: E402  (copydetect's log lines)
from grader.intake.submissions import discover  # noqa: E402
from grader.results.similarity_html import render  # noqa: E402

SOURCES = ("puzzlesolver.c", "puzzlesolver.cpp", "PuzzleSolver.java", "puzzlesolver.py")
COMMENT = {".py": "# ", ".c": "// ", ".cpp": "// ", ".java": "// "}


def bases():
    found = []
    for folder in sorted((ROOT / "submissions").iterdir()):
        for name in SOURCES:
            if (folder / name).is_file():
                found.append((name, (folder / name).read_text()))
    return found


def variant(text: str, suffix: str, rng: random.Random) -> str:
    lines = []
    for line in text.splitlines():
        if rng.random() < 0.15 and line.strip():
            continue  # dropped
        lines.append(line)
        if rng.random() < 0.1:
            lines.append(
                " " * (len(line) - len(line.lstrip()))
                + COMMENT[suffix]
                + f"note {rng.randrange(10**6)}"
            )
    return "\n".join(lines) + "\n"


def make_class(root: Path, students: int, rng: random.Random) -> None:
    programs = bases()
    for i in range(students):
        name, text = rng.choice(programs)
        folder = root / f"student-{i:03d}"
        folder.mkdir()
        (folder / name).write_text(variant(text, Path(name).suffix, rng))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    config = load_config()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "class"
        root.mkdir()
        make_class(root, args.students, rng)
        subs = discover(root, config)

        clock = [(time.perf_counter(), time.process_time())]
        with quiet():
            documents = [fingerprint(sub, []) for sub in subs]
            clock.append((time.perf_counter(), time.process_time()))
            pairs = [compare(a, b) for i, a in enumerate(documents) for b in documents[i + 1 :]]
        pairs.sort(key=lambda p: (-p.score, -p.tokens, p.left.id, p.right.id))
        clock.append((time.perf_counter(), time.process_time()))
        page = render(
            Report(pairs, documents, [], []),
            shown=40,
            copydetect_version="bench",
            generated=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        )
        (Path(tmp) / "similarity.html").write_text(page, encoding="utf-8")
        clock.append((time.perf_counter(), time.process_time()))

    languages = {}
    for document in documents:
        languages[document.language] = languages.get(document.language, 0) + 1
    mix = ", ".join(f"{n} {language}" for language, n in sorted(languages.items()))
    print(f"class: {len(documents)} submissions ({mix}), {len(pairs)} pairs")
    print("                        wall s    CPU s")
    for label, (start, end) in (
        ("fingerprint every file", (0, 1)),
        ("compare every pair", (1, 2)),
        ("render and write page", (2, 3)),
        ("total", (0, 3)),
    ):
        wall = clock[end][0] - clock[start][0]
        cpu = clock[end][1] - clock[start][1]
        print(f"{label:<22} {wall:8.2f} {cpu:8.2f}")
    compare_cpu = clock[2][1] - clock[1][1]
    print(f"a pair: {compare_cpu / len(pairs) * 1e6:.0f} us CPU; page {len(page) / 1e6:.1f} MB")
    print(f"pairs over 50% similar: {sum(p.score > 0.5 for p in pairs)}")


if __name__ == "__main__":
    main()
