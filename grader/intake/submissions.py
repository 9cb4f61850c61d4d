"""Find submissions and decide each one's language from its file name.

A folder that cannot be graded (no source file, two, a wrong name, a link, a
file that is not text) is still a Submission: it carries the reason, and the
judge grades it CE. So is every other entry of a class folder that is not a
folder (a zip file, a dangling link, a link loop); hidden entries without a
program are listed with the reason they were skipped. Nothing is skipped silently.

Names come from students: ids and every name in a message are escaped
(grader.core.text.safe_name), so a name that is not UTF-8 or holds escape sequences
is shown, never crashes the grader or drives a terminal. The real path stays
in Submission.folder for building.

Extra files: besides the main file, the course's policy ([submissions]
extra_files in course.toml) decides which other files are copied beside it;
every entry of the folder is listed as used or ignored, with the reason.
"""

import errno
import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, overload

from grader import languages
from grader.core.bounded import NotAFile, TooLarge, read_limited
from grader.core.errors import GraderError
from grader.core.text import safe_name
from grader.course.config import CourseConfig, LanguageSpec
from grader.course.submission_meta import RECORD_NAME, read_meta
from grader.languages import language_of
from grader.languages.source_facts import NO_FACTS, ProgramFacts, is_entry_point, program_facts

MAX_SOURCE_BYTES = 1 << 20  # each source file (the main one, and each extra one)
MAX_EXTRA_FILES = 64
MAX_EXTRA_BYTES = 4 << 20
# The files of each language that a build or an import can use beside the main file.
COMPANION_SUFFIXES = {lang.name: lang.companions for lang in languages.REGISTRY}
ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".7z", ".rar", ".gz")


@dataclass(frozen=True)
class Submission:
    id: str
    folder: Path
    source: Path | None  # the one source file, when there is exactly one
    language: LanguageSpec | None
    problem: str | None  # why it cannot be built, or None
    content_hash: str  # changes whenever what is graded changes
    extra_files: tuple[str, ...] = ()  # real names, beside `source`, copied into the build
    ignored: tuple[tuple[str, str], ...] = ()  # (shown name, why) of every entry not used
    facts: ProgramFacts = NO_FACTS  # what its sources show (where it reads its puzzle...)

    @property
    def language_name(self) -> str:
        return self.language.name if self.language else "?"

    @property
    def used_files(self) -> tuple[str, ...]:
        """Shown names of the files the build gets (the main file first)."""
        if self.source is None:
            return ()
        return (safe_name(self.source.name), *(safe_name(n) for n in self.extra_files))


@dataclass(frozen=True)
class Skipped:
    """An entry of a class folder that is not graded: a hidden file or folder
    without a program."""

    name: str  # shown (escaped)
    reason: str


@dataclass
class Survey:
    """Everything found in a class folder: what is graded, and what is not, with why."""

    submissions: list[Submission] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


class SubmissionError(GraderError):
    """The path given to grade or check does not exist; str() names it."""


def discover(path: Path, config: CourseConfig) -> list[Submission]:
    """Submissions under `path`: a folder of student folders, one student's
    folder, or a single source file."""
    return survey(path, config).submissions


def survey(path: Path, config: CourseConfig) -> Survey:
    """Like discover, and the hidden entries skipped, each with the reason."""
    path = Path(path)
    if not path.exists():
        if path.is_symlink():
            raise SubmissionError(
                f"{safe_name(path)}: a symbolic link to "
                f"{safe_name(_link_target(path))}, which does not exist"
            )
        raise SubmissionError(f"{safe_name(path)}: no such file or folder")
    if path.is_file():
        return Survey([_from_file(path, config)])
    entries = _entries(path)
    if _source_names(path, config) or _is_student_folder(entries, config):
        return Survey([load(path, config)])
    result = Survey()
    for entry in entries:
        if entry.name == RECORD_NAME and not _is_folder(entry):
            continue  # the import's own record of what it wrote (grader.course.submission_meta)
        if entry.name.startswith(".") and not (
            _is_real_folder(entry) and _source_names(entry, config)
        ):
            what = "folder" if _is_real_folder(entry) else "file"
            result.skipped.append(
                Skipped(safe_name(entry.name), f"hidden {what} without a source file")
            )
            continue
        sub = load(entry, config) if _is_folder(entry) else _not_a_folder(entry)
        result.submissions.append(sub)
    _unique_ids(result.submissions)
    return result


def _entries(folder: Path) -> list[Path]:
    try:
        return sorted(folder.iterdir(), key=lambda p: os.fsencode(p.name))
    except OSError as error:
        raise SubmissionError(
            f"{safe_name(folder)}: cannot list the folder: {error.strerror or error}"
        ) from None


def _is_folder(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:  # a link loop, say
        return False


def _is_real_folder(path: Path) -> bool:
    return not path.is_symlink() and _is_folder(path)


def _is_student_folder(entries: list[Path], config: CourseConfig) -> bool:
    """No folder, but a file that looks like a misnamed source: one student's
    folder (`check DIR` names the file), not a class folder."""
    if any(_is_folder(e) for e in entries if not e.name.startswith(".")):
        return False
    return any(
        _wrong_name(e.name, config, strict=True) for e in entries if not e.name.startswith(".")
    )


def _not_a_folder(entry: Path) -> Submission:
    """An entry of a class folder that is not a folder: graded CE with the reason."""
    sid = safe_name(entry.name)
    if entry.is_symlink():
        target = safe_name(_link_target(entry))
        try:
            entry.resolve(strict=True)
        except (OSError, RuntimeError) as error:
            if isinstance(error, RuntimeError) or getattr(error, "errno", None) == errno.ELOOP:
                why = f"a symbolic link that loops (to {target}, which leads back to itself)"
            else:
                why = f"a symbolic link to {target}, which does not exist"
            return _rejected(sid, entry, why + ": each submission must be a folder")
        return _rejected(
            sid, entry, f"a symbolic link to the file {target}: each submission must be a folder"
        )
    if not entry.is_file():
        return _rejected(
            sid, entry, "neither a file nor a folder: each submission must be a folder"
        )
    lower = entry.name.lower()
    if lower.endswith(ARCHIVE_SUFFIXES) or _starts_with(entry, b"PK\x03\x04"):
        return _rejected(
            sid, entry, "an archive, not a folder: unpack it into a folder of its own to grade it"
        )
    return _rejected(sid, entry, "a file, not a folder: put each submission in a folder of its own")


def _starts_with(path: Path, magic: bytes) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(len(magic)) == magic
    except OSError:
        return False


def _unique_ids(subs: list[Submission]) -> None:
    """Two raw names can escape to one id: number the later ones."""
    seen = set()
    for index, sub in enumerate(subs):
        sid, n = sub.id, 1
        while sid in seen:
            n += 1
            sid = f"{sub.id}~{n}"
        seen.add(sid)
        if sid != sub.id:
            subs[index] = replace(sub, id=sid)


def _source_names(folder: Path, config: CourseConfig) -> list[str]:
    names = {spec.source for spec in config.languages.values()}
    try:
        return sorted(p.name for p in folder.iterdir() if p.name in names)
    except OSError:
        return []


def _from_file(path: Path, config: CourseConfig) -> Submission:
    spec = config.language_for(path.name)
    sid = safe_name(path.parent.resolve().name or "submission")
    if spec is None:
        return _rejected(sid, path.parent, _wrong_name(path.name, config))
    return _checked(sid, path.parent, path, spec, config)


def load(folder: Path, config: CourseConfig, *, facts: bool = True) -> Submission:
    """One student's folder, and the files its import could not use (grader.
    submission_meta: a link in their repository, an LFS pointer, a submodule), listed
    with why. `facts`: what its source shows (grader.languages.source_facts), which only a
    diagnosis needs (the leaderboard, rebuilding a graded program, does not)."""
    loaded = _load(folder, config, facts)
    unusable = _unusable(folder)
    if not unusable:
        return loaded
    listed = tuple((name, f"in the submission, not imported: {why}") for name, why in unusable)
    if loaded.problem is not None and not _source_names(folder, config):
        mains = [(n, w) for n, w in unusable if "/" not in n and config.language_for(n)]
        if mains:  # the main file itself is one of them: say so, not "no file is named"
            name, why = mains[0]
            problem = f"{name} cannot be used: {why}"
            return _rejected(loaded.id, folder, problem, loaded.ignored + listed)
    return replace(loaded, ignored=loaded.ignored + listed)


def _unusable(folder: Path) -> list[tuple[str, str]]:
    """(shown path, why) of each file the import recorded it could not use."""
    meta = read_meta(folder)
    if meta is None:
        return []
    return sorted((safe_name(path), why) for path, why in meta.unusable.items())


def _load(folder: Path, config: CourseConfig, facts: bool = True) -> Submission:
    sid = safe_name(folder.name)
    found = _source_names(folder, config)
    if len(found) > 1:
        why = f"one of {len(found)} source files: keep exactly one"
        return _rejected(
            sid,
            folder,
            f"more than one source file ({', '.join(found)}): keep exactly one",
            _inventory_of_rejected(
                folder, config, {name: why for name in found}, "the folder has two main files"
            ),
        )
    if found:
        spec = config.language_for(found[0])
        assert spec is not None, "_source_names finds only the languages' source names"
        return _checked(sid, folder, folder / found[0], spec, config, facts)
    problem, notes = _nothing_found(folder, config)
    blocked = "no file is named {source}"
    return _rejected(sid, folder, problem, _inventory_of_rejected(folder, config, notes, blocked))


def _checked(
    sid: str,
    folder: Path,
    source: Path,
    spec: LanguageSpec,
    config: CourseConfig,
    facts: bool = True,
) -> Submission:
    data, problem = _read_source(source)
    if data is None:
        assert problem is not None, "_read_source gives the bytes or the reason"
        why = problem[len(safe_name(source.name)) + 1 :]  # without the name
        notes = {safe_name(source.name): why}
        blocked = f"{safe_name(source.name)} cannot be used"
        return _rejected(
            sid, folder, problem, _inventory_of_rejected(folder, config, notes, blocked)
        )
    # The commands are part of what is graded: changing a build flag rebuilds.
    digest = hashlib.sha256(repr(_commands(spec)).encode() + b"\0" + data)
    extra, ignored = _inventory(folder, source, spec, config.extra_files)
    for name, content in extra:  # a submission with no extra file keeps the hash it always had
        digest.update(b"\0" + os.fsencode(name) + b"\0" + content)
    names = tuple(name for name, _ in extra)
    texts = {source.name: data, **dict(extra)}
    shown = (
        program_facts(
            {name: content.decode("utf-8", "replace") for name, content in texts.items()},
            spec.name,
            config.python_packages,
        )
        if facts
        else NO_FACTS
    )
    return Submission(
        sid, folder, source, spec, None, digest.hexdigest(), names, tuple(ignored), shown
    )


def _commands(spec: LanguageSpec) -> LanguageSpec:
    """A language as its content hash holds it: its name, file and commands (Python's
    list of the course's packages changes no verdict, and no hash)."""
    return LanguageSpec(spec.name, spec.source, spec.build, spec.run, spec.memory_rlimit)


def _inventory(
    folder: Path, source: Path, spec: LanguageSpec, policy: str
) -> tuple[list[tuple[str, bytes]], list[tuple[str, str]]]:
    """((name, content) of the extra files copied beside the main file, (shown name,
    why) of every entry not used)."""
    extra: list[tuple[str, bytes]] = []
    ignored: list[tuple[str, str]] = []
    total = 0
    suffixes = COMPANION_SUFFIXES.get(spec.name, ())
    for entry in _entries(folder):
        if entry.name == source.name:
            continue
        name = safe_name(entry.name)
        data, why = b"", _extra_problem(entry, suffixes, policy)
        if why is None and len(extra) >= MAX_EXTRA_FILES:
            why = f"more than {MAX_EXTRA_FILES} extra files"
        if why is None:
            read, problem = _read_source(entry)
            why = problem[len(name) + 1 :] if problem else None  # without the name
            data = read or b""
        if why is None and total + len(data) > MAX_EXTRA_BYTES:
            why = f"the extra files pass {MAX_EXTRA_BYTES:,} bytes in all"
        if why is None:
            total += len(data)
            extra.append((entry.name, data))
        else:
            ignored.append((name + ("/" if _is_real_folder(entry) else ""), why))
    return extra, ignored


def _extra_problem(entry: Path, suffixes: Iterable[str], policy: str) -> str | None:
    """Why `entry` is not copied beside the main file, by its name (None: it may be)."""
    if _is_real_folder(entry):
        return "a folder: only files beside the main file are used"
    if entry.name.startswith("."):
        return "a hidden file"
    if not entry.name.lower().endswith(tuple(suffixes)):
        return "not a source or header file of this language"
    if policy == "none":
        return "the course uses the main file only"
    if safe_name(entry.name) != entry.name:
        return "its name is not plain UTF-8 text"
    return None


def _read_source(source: Path) -> tuple[bytes | None, str | None]:
    """(the file's bytes, None), or (None, why it cannot be graded, starting with its
    name). Read once, and never past MAX_SOURCE_BYTES."""
    name = safe_name(source.name)
    if source.is_symlink():
        return None, (
            f"{name} is a symbolic link (to {safe_name(_link_target(source))}): "
            "submit the file itself"
        )
    try:
        data = read_limited(source, MAX_SOURCE_BYTES)
    except TooLarge as error:
        size = f"{error.size:,} bytes" if error.size is not None else "too large"
        return None, f"{name} is {size}; a source file may be at most {MAX_SOURCE_BYTES:,} bytes"
    except NotAFile:
        return None, f"{name} is not a regular file"
    except OSError as error:
        return None, f"{name} cannot be read: {error.strerror or error}"
    if b"\0" in data:
        return None, f"{name} is not a text file (it contains NUL bytes)"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        return None, f"{name} is not UTF-8 text (bad byte at offset {error.start})"
    return data, None


def _link_target(path: Path) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return "?"


def _nothing_found(folder: Path, config: CourseConfig) -> tuple[str, dict[str, str]]:
    """Why a folder without any file named as the course requires cannot be built,
    and a note for each file that tells why (shown name below the folder -> why): the
    file where the program starts is named as the likely entry point."""
    expected = ", ".join(spec.source for spec in config.languages.values())
    files = sorted(_files_below(folder))
    for path in files:
        spec = config.language_for(path.name)
        if spec is not None:  # right name, wrong place
            relative = safe_name(path.relative_to(folder))
            return (
                f"found {relative}, but the source file must be at the top of the folder",
                {relative: "the source file, but not at the top of the folder"},
            )
    starts = [(path, spec) for path, spec in _sources(files, config) if _starts_there(path)]
    if starts:
        return _entry_points(folder, starts)
    for path in files:
        hint = _wrong_name(path.name, config, strict=True)
        if hint:
            return hint, {}
    if not files:
        return f"the folder is empty: expected one of {expected}", {}
    return f"no source file: expected one of {expected}", {}


def _sources(files: list[Path], config: CourseConfig) -> list[tuple[Path, LanguageSpec]]:
    """The files of a language the course accepts, with that language."""
    found = []
    for path in files:
        language = language_of(path.name)
        if language is not None and language in config.languages:
            found.append((path, config.languages[language]))
    return found


def _starts_there(path: Path) -> bool:
    """The file holds its program's entry point (read within the size limit, a link
    never followed)."""
    data, _ = _read_source(path)
    return data is not None and is_entry_point(path.name, data.decode("utf-8"))


def _entry_points(
    folder: Path, starts: list[tuple[Path, LanguageSpec]]
) -> tuple[str, dict[str, str]]:
    """The message naming the likely entry point(s), and their notes."""
    notes = {}
    named = []
    for path, spec in starts:
        relative = safe_name(path.relative_to(folder))
        language = languages.BY_NAME[spec.name]
        words = language.entry_words
        rename = language.rename.format(source=spec.source, stem=Path(spec.source).stem)
        if path.parent != folder:
            rename = f"put it at the top of the folder and {rename}"
        notes[relative] = f"{words}: the likely entry point; {rename}"
        named.append((relative, words, rename, spec.source))
    if len(named) == 1:
        relative, words, rename, source = named[0]
        return (
            f"no file is named {source}: {relative} {words}, the likely entry point: {rename}",
            notes,
        )
    listed = ", ".join(f"{relative} ({words})" for relative, words, _, _ in named)
    names = ", ".join(sorted({source for *_, source in named}))
    return (
        f"no file is named {names}; the likely entry points are {listed}: name the one "
        "that solves the puzzle as its language requires",
        notes,
    )


def _inventory_of_rejected(
    folder: Path, config: CourseConfig, notes: dict[str, str], blocked: str
) -> tuple[tuple[str, str], ...]:
    """Every entry of a folder that cannot be built, with why it was not used: a note
    of `notes` (by shown name, which may lie below the folder), else by its kind; a
    source or header file is not built because of `blocked` ("{source}" in it: the
    name its language's main file must have)."""
    listed = dict(notes)
    for entry in _entries_or_nothing(folder):
        name = safe_name(entry.name)
        if _is_real_folder(entry):
            name += "/"
            below = [shown for shown in notes if shown.startswith(name)]
            why = "a folder: only files at the top of the folder are used"
            listed.setdefault(name, why + (f" (it holds {', '.join(below)})" if below else ""))
        elif entry.name.startswith("."):
            listed.setdefault(name, "a hidden file")
        elif _main_names(entry.name, config):
            source = " or ".join(_main_names(entry.name, config))
            listed.setdefault(name, "not built: " + blocked.format(source=source))
        else:
            listed.setdefault(name, "not a source or header file")
    return tuple(sorted(listed.items(), key=lambda item: os.fsencode(item[0])))


def _main_names(name: str, config: CourseConfig) -> list[str]:
    """The main files a source or header file of this name could be built with."""
    lower = name.lower()
    return [
        config.languages[language].source
        for language, suffixes in COMPANION_SUFFIXES.items()
        if language in config.languages and lower.endswith(suffixes)
    ]


def _files_below(folder: Path, depth: int = 4) -> Iterable[Path]:
    """Files under `folder` (not hidden), without following links or loops."""
    if depth < 0:
        return
    for entry in _entries_or_nothing(folder):
        if entry.name.startswith("."):
            continue
        if _is_real_folder(entry):
            yield from _files_below(entry, depth - 1)
        elif entry.is_file() or entry.is_symlink():
            yield entry


def _entries_or_nothing(folder: Path) -> list[Path]:
    try:
        return _entries(folder)
    except SubmissionError:
        return []


@overload
def _wrong_name(name: str, config: CourseConfig, strict: Literal[False] = False) -> str: ...
@overload
def _wrong_name(name: str, config: CourseConfig, strict: bool) -> str | None: ...


def _wrong_name(name: str, config: CourseConfig, strict: bool = False) -> str | None:
    """A hint when `name` looks like a misnamed source file."""
    suffix = Path(name).suffix.lower()
    shown = safe_name(name)
    for spec in config.languages.values():
        if Path(spec.source).suffix == suffix or name.lower() == spec.source.lower():
            return f"found {shown}, but the file must be named {spec.source}"
    if strict:
        return None
    expected = ", ".join(spec.source for spec in config.languages.values())
    return f"{shown} is not a source file this assignment accepts (expected one of {expected})"


def _rejected(
    sid: str, folder: Path, problem: str, ignored: tuple[tuple[str, str], ...] = ()
) -> Submission:
    digest = hashlib.sha256(b"rejected\0" + problem.encode()).hexdigest()
    return Submission(sid, folder, None, None, problem, digest, ignored=ignored)
