"""Similarity of every pair of submissions, with copydetect (a tokenising
winnowing detector, after Schleimer, Wilkerson and Aiken's MOSS).

copydetect tokenises each file with Pygments and replaces identifiers, function
names and string contents by one letter each, so renaming variables changes
nothing; it then fingerprints k-grams of tokens (winnowing), so moving whole
functions around keeps most fingerprints. Fingerprints that also occur in the
starter code (--base) are dropped from every file before comparing: code the
whole class was handed is never evidence.

Pairs across languages are compared too (the tokens of C, C++ and Java are close
enough that a port can show); each file is tokenised by its own language.
"""

import io
import logging
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from grader import languages
from grader.core.bounded import read_limited
from grader.core.errors import GraderError
from grader.course.config import CourseConfig
from grader.intake.submissions import MAX_SOURCE_BYTES, Submission, discover

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

NOISE_TOKENS = 25  # k: matches shorter than this are never reported (copydetect's default)
_HASH_BASE = 1099511628211  # of the k-grams' polynomial hash, modulo 2**64 (FNV's prime)
GUARANTEE_TOKENS = 30  # matches at least this long are always found
STARTER_SUFFIXES = {suffix for lang in languages.REGISTRY for suffix in lang.companions}


class SimilarityError(GraderError):
    """copydetect is missing or the starter folder is unusable; str() says which."""


@dataclass(frozen=True)
class Document:
    id: str  # the submission id
    language: str
    path: Path
    text: str
    fingerprint: object  # copydetect.CodeFingerprint


@dataclass(frozen=True)
class Pair:
    left: Document
    right: Document
    similarity: tuple[float, float]  # share of each side's code found in the other
    tokens: int  # matching tokens
    slices: tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]  # char ranges

    @property
    def score(self) -> float:
        """The larger share: a small program copied whole into a big one still ranks high."""
        return max(self.similarity)


@dataclass
class Report:
    pairs: list[Pair]  # every pair, most similar first
    documents: list[Document]
    skipped: list[tuple[str, str]]  # (submission id, why it was not compared)
    starter_files: list[Path]


def _copydetect() -> tuple[ModuleType, ModuleType, ModuleType]:
    try:
        import copydetect
        from copydetect import detector, utils
    except ImportError:
        raise SimilarityError(
            "the similarity report needs copydetect: pip install 'scramble-grader[similarity]'"
        ) from None
    return copydetect, detector, utils


@contextmanager
def _quiet() -> Iterator[None]:
    """copydetect logs a warning per file it cannot tokenise and warns on empty
    matches; the report says what it skipped itself. Restored afterwards."""
    previous = logging.root.manager.disable
    logging.disable(logging.WARNING)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logging.disable(previous)


@contextmanager
def _stable_hashes() -> Iterator[None]:
    """copydetect hashes each k-gram with hash(), which Python seeds afresh in every
    process: the same class scored differently from one run to the next (0.30 to 0.35
    for one pair of the example class, the ranking reordered). Its k-grams are hashed
    the same way in every process while this lasts; restored afterwards."""
    utils: Any = _copydetect()[2]  # untyped
    original = utils.hashed_kgrams
    utils.hashed_kgrams = kgram_hashes
    try:
        yield
    finally:
        utils.hashed_kgrams = original


def kgram_hashes(text: str, k: int) -> "NDArray[np.int64]":
    """A hash of every k characters of ``text`` (copydetect's filtered code), from
    ``text`` alone: a polynomial of its characters' code points, modulo 2**64."""
    import numpy as np

    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    count = len(codes) - k + 1
    if count <= 0:
        return np.array([], dtype=np.int64)
    hashes = np.zeros(count, dtype=np.uint64)
    for offset in range(k):  # array arithmetic wraps modulo 2**64
        hashes = hashes * np.uint64(_HASH_BASE) + codes[offset : offset + count]
    return hashes.view(np.int64)


def starter_hashes(base: Path | None) -> tuple[list[Path], object]:
    """Fingerprints of every source file under `base` (the hand-out code)."""
    if base is None:
        return [], []
    base = Path(base)
    if not base.is_dir():
        raise SimilarityError(f"{base}: the starter code folder does not exist")
    _, detector, _ = _copydetect()
    import numpy as np

    files = sorted(p for p in base.rglob("*") if p.is_file() and p.suffix in STARTER_SUFFIXES)
    hashes = set()
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        fingerprint = detector.CodeFingerprint(
            str(path), NOISE_TOKENS, _window(), fp=io.StringIO(text)
        )
        hashes |= set(fingerprint.hashes)
    return files, np.array(sorted(hashes), dtype=np.int64)


def _window() -> int:
    return GUARANTEE_TOKENS - NOISE_TOKENS + 1


def fingerprint(sub: Submission, boilerplate: object) -> Document:
    _, detector, _ = _copydetect()
    if sub.source is None:
        raise ValueError(f"{sub.id}: no source file to fingerprint")
    # Bounded: the file may have grown since discover() checked it. Decoded as
    # read_text would (universal newlines), so fingerprints stay what they were.
    data = io.BytesIO(read_limited(sub.source, MAX_SOURCE_BYTES))
    text = io.TextIOWrapper(data, encoding="utf-8", errors="replace").read()
    print_name = sub.source.name  # the extension picks the lexer
    fp = detector.CodeFingerprint(
        print_name, NOISE_TOKENS, _window(), boilerplate=boilerplate, fp=io.StringIO(text)
    )
    return Document(sub.id, sub.language_name, sub.source, text, fp)


def compare(left: Document, right: Document) -> Pair:
    _, detector, _ = _copydetect()
    tokens, (sim_left, sim_right), (slices_left, slices_right) = detector.compare_files(
        left.fingerprint, right.fingerprint
    )
    return Pair(
        left,
        right,
        (float(sim_left), float(sim_right)),
        int(tokens),
        (_ranges(slices_left), _ranges(slices_right)),
    )


def _ranges(slices: "NDArray[Any]") -> tuple[tuple[int, int], ...]:
    if len(slices) == 0 or len(slices[0]) == 0:
        return ()
    return tuple(sorted((int(a), int(b)) for a, b in zip(slices[0], slices[1])))


def similarity_report(folder: Path, config: CourseConfig, base: Path | None = None) -> Report:
    """Compare every pair of gradable submissions under `folder`."""
    _copydetect()
    submissions = discover(folder, config)
    with _quiet(), _stable_hashes():
        starter, boilerplate = starter_hashes(base)
        documents, skipped = [], []
        for sub in submissions:
            if sub.problem is not None or sub.source is None:
                skipped.append((sub.id, sub.problem or "no source file"))
                continue
            try:
                documents.append(fingerprint(sub, boilerplate))
            except OSError as error:
                skipped.append((sub.id, f"cannot be read: {error.strerror or error}"))
            except (RecursionError, MemoryError, ValueError) as error:  # the lexer's bounds
                skipped.append((sub.id, f"could not be analysed ({type(error).__name__})"))
        pairs = [compare(a, b) for a, b in combinations(documents, 2)]
    pairs.sort(key=lambda p: (-p.score, -p.tokens, p.left.id, p.right.id))
    return Report(pairs, documents, skipped, starter)
