"""Find submissions and decide each one's language from its file name.

A folder that cannot be graded (no source file, two, a wrong name, a link, a
file that is not text) is still a Submission: it carries the reason, and the
judge grades it CE. Nothing is skipped silently.
"""

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

from grader.config import CourseConfig, LanguageSpec
from grader.errors import GraderError

MAX_SOURCE_BYTES = 1 << 20


@dataclass(frozen=True)
class Submission:
    id: str
    folder: Path
    source: Optional[Path]  # the one source file, when there is exactly one
    language: Optional[LanguageSpec]
    problem: Optional[str]  # why it cannot be built, or None
    content_hash: str  # changes whenever what is graded changes

    @property
    def language_name(self) -> str:
        return self.language.name if self.language else "?"


class SubmissionError(GraderError):
    """The path given to grade or check does not exist; str() names it."""


def discover(path: Path, config: CourseConfig) -> List[Submission]:
    """Submissions under `path`: a folder of student folders, one student's
    folder, or a single source file."""
    path = Path(path)
    if not path.exists():
        raise SubmissionError(f"{path}: no such file or folder")
    if path.is_file():
        return [_from_file(path, config)]
    if _source_names(path, config):
        return [load(path, config)]
    folders = sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith("."))
    return [load(folder, config) for folder in folders]


def _source_names(folder: Path, config: CourseConfig) -> List[str]:
    names = {spec.source for spec in config.languages.values()}
    return sorted(p.name for p in folder.iterdir() if p.name in names)


def _from_file(path: Path, config: CourseConfig) -> Submission:
    spec = config.language_for(path.name)
    if spec is None:
        return _rejected(path.parent.resolve().name or "submission", path.parent,
                         _wrong_name(path.name, config))
    return _checked(path.parent.resolve().name, path.parent, path, spec)


def load(folder: Path, config: CourseConfig) -> Submission:
    """One student's folder."""
    sid = folder.name
    found = _source_names(folder, config)
    if len(found) > 1:
        return _rejected(sid, folder, f"more than one source file ({', '.join(found)}): "
                         "keep exactly one")
    if found:
        return _checked(sid, folder, folder / found[0], config.language_for(found[0]))
    return _rejected(sid, folder, _nothing_found(folder, config))


def _checked(sid: str, folder: Path, source: Path, spec: LanguageSpec) -> Submission:
    problem = _source_problem(folder, source)
    if problem:
        return _rejected(sid, folder, problem)
    data = source.read_bytes()
    # The commands are part of what is graded: changing a build flag rebuilds.
    digest = hashlib.sha256(repr(spec).encode() + b"\0" + data).hexdigest()
    return Submission(sid, folder, source, spec, None, digest)


def _source_problem(folder: Path, source: Path) -> Optional[str]:
    if source.is_symlink():
        return (f"{source.name} is a symbolic link (to {_link_target(source)}): "
                "submit the file itself")
    if not source.is_file():
        return f"{source.name} is not a regular file"
    try:
        data = source.read_bytes()
    except OSError as error:
        return f"{source.name} cannot be read: {error.strerror}"
    if len(data) > MAX_SOURCE_BYTES:
        return f"{source.name} is {len(data):,} bytes; a source file may be at most {MAX_SOURCE_BYTES:,}"
    if b"\0" in data:
        return f"{source.name} is not a text file (it contains NUL bytes)"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"{source.name} is not UTF-8 text (bad byte at offset {error.start})"
    return None


def _link_target(path: Path) -> str:
    try:
        return str(path.readlink())
    except OSError:
        return "?"


def _nothing_found(folder: Path, config: CourseConfig) -> str:
    expected = ", ".join(spec.source for spec in config.languages.values())
    files = sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith("."))
    for path in files:
        spec = config.language_for(path.name)
        if spec is not None:  # right name, wrong place
            relative = path.relative_to(folder)
            return f"found {relative}, but the source file must be at the top of the folder"
    for path in files:
        hint = _wrong_name(path.name, config, strict=True)
        if hint:
            return hint
    if not files:
        return f"the folder is empty: expected one of {expected}"
    return f"no source file: expected one of {expected}"


def _wrong_name(name: str, config: CourseConfig, strict: bool = False) -> Optional[str]:
    """A hint when `name` looks like a misnamed source file."""
    suffix = Path(name).suffix.lower()
    for spec in config.languages.values():
        if Path(spec.source).suffix == suffix or name.lower() == spec.source.lower():
            return f"found {name}, but the file must be named {spec.source}"
    if strict:
        return None
    expected = ", ".join(spec.source for spec in config.languages.values())
    return f"{name} is not a source file this assignment accepts (expected one of {expected})"


def _rejected(sid: str, folder: Path, problem: str) -> Submission:
    digest = hashlib.sha256(b"rejected\0" + problem.encode()).hexdigest()
    return Submission(sid, folder, None, None, problem, digest)
