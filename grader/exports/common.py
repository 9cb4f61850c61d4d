"""What every export shares: packing files into zips byte for byte reproducibly, copying
a case set with its manifest, and the names of verdicts and languages. (Reading the
last grading run back is grader/results/last_run.py: the LMS export reads it too.)"""

import json
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, requires
from modulefinder import ModuleFinder
from pathlib import Path

from grader import PACKAGE, languages
from grader.cases.manifest import Case, default_manifest, load_cases
from grader.cases.pool import pool_manifest
from grader.core import verdicts
from grader.core.atomic import atomic_output
from grader.core.errors import GraderError
from grader.course.config import tomllib  # the grader's own machine has it (3.11+, or tomli)
from grader.sandbox import PROGRAM_FILES

GRADER_ROOT = PACKAGE  # the grader package itself
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed: the same inputs give the same zip


class ExportError(GraderError):
    """An export cannot be made; str() is the one-line reason."""


# ------------------------------------------------------------------ files and zips

Content = bytes | str | Path


@dataclass(frozen=True)
class Entry:
    """One file of a zip: its name inside, what it holds, its mode."""

    name: str
    content: Content
    executable: bool = False

    def data(self) -> bytes:
        if isinstance(self.content, Path):
            return self.content.read_bytes()
        if isinstance(self.content, str):
            return self.content.encode("utf-8")
        return self.content


def package_entries(prefix: str = "") -> list[Entry]:
    """The grader package's own files (sources, schemas and the sandbox's C programs, so
    that the grader unpacked elsewhere runs the same warm sandbox; no caches)."""
    entries = []
    for path in sorted(GRADER_ROOT.rglob("*")):
        relative = path.relative_to(GRADER_ROOT)
        if not path.is_file() or "__pycache__" in relative.parts:
            continue
        if path.suffix not in (".py", ".json", ".c", ".h"):
            continue
        entries.append(Entry(f"{prefix}grader/{relative.as_posix()}", path))
    return entries


def module_entries(root_module: str, prefix: str = "") -> list[Entry]:
    """The grader's modules `root_module` imports, at any depth and wherever in a module
    the import is (a function's too), with their packages' __init__ files, the schema
    of the manifest and the sandbox's C programs: all that runs it, nothing else."""
    finder = ModuleFinder(path=[str(GRADER_ROOT.parent)])
    finder.import_hook(root_module)
    wanted: set[Path] = set()
    for name, module in finder.modules.items():
        source = getattr(module, "__file__", None)  # modulefinder's Module: None if built-in
        if name.split(".")[0] != "grader" or not source:
            continue
        path = Path(source).resolve()
        wanted.add(path)
        for parent in path.parents:  # a module's packages
            if parent == GRADER_ROOT.parent:
                break
            wanted.add(parent / "__init__.py")
    wanted |= {GRADER_ROOT / "sandbox" / name for name in PROGRAM_FILES}
    wanted.add(GRADER_ROOT / "schemas" / "manifest.schema.json")
    return [
        Entry(f"{prefix}grader/{path.relative_to(GRADER_ROOT).as_posix()}", path)
        for path in sorted(wanted)
        if path.is_file()
    ]


def zip_path(out: Path) -> Path:
    """The zip an export writes: refused when it names a folder."""
    if out.is_dir():
        raise ExportError(f"{out}: is a folder; name the zip file to write")
    return out


def write_zip(out: Path, entries: Sequence[Entry]) -> None:
    """Write the zip atomically: a failure leaves no half-written archive behind.

    Entries are sorted and dated 1980-01-01, so the same inputs give the same bytes;
    executables are marked 0755 for `unzip` (Python's zipfile ignores modes)."""
    out = Path(out)
    names = [entry.name for entry in entries]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ExportError(f"{out}: two files would have the same name: {', '.join(duplicates)}")
    try:
        with atomic_output(out) as handle, zipfile.ZipFile(handle, "w") as archive:
            for entry in sorted(entries, key=lambda e: e.name):
                info = zipfile.ZipInfo(entry.name, ZIP_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.create_system = 3  # Unix: `unzip` then honours the mode below
                info.external_attr = (0o100755 if entry.executable else 0o100644) << 16
                archive.writestr(info, entry.data())
    except OSError as error:
        raise ExportError(f"{out}: cannot write: {error.strerror or error}") from None


# ------------------------------------------------------------------ case sets


def case_entries(
    manifest: Path | None, keep: Callable[[Case], bool], prefix: str = "testcases/"
) -> tuple[list[Case], list[Entry]]:
    """The cases `keep` accepts, as a manifest and its files under `prefix`.

    The manifest is validated first (a broken case set is an error, not a zip).
    Files go to public/ or hidden/ by the case's own visibility, whatever folder
    they came from, so a public-only copy never has a hidden/ folder."""
    manifest = Path(manifest or default_manifest())
    cases = [case for case in load_cases(manifest) if keep(case)]
    if not cases:
        raise ExportError(f"{manifest}: no cases to export")
    raw = {entry["id"]: entry for entry in json.loads(manifest.read_text("utf-8"))["cases"]}
    entries: dict[str, Path] = {}
    out_cases = []
    for case in cases:
        entry = dict(raw[case.id])
        for key, source in (("input", case.input), ("expected", case.expected)):
            name = f"{case.visibility}/{source.name}"
            if entries.setdefault(name, source.resolve()) != source.resolve():
                raise ExportError(f"{manifest}: two case files would both be {name}")
            entry[key] = name
        out_cases.append(entry)
    document = {"version": 1, "cases": out_cases}
    files = [Entry(prefix + name, path) for name, path in entries.items()]
    files.append(Entry(prefix + "manifest.json", json.dumps(document, indent=2) + "\n"))
    return cases, files


def pool_entries(manifest: Path | None, prefix: str = "testcases/") -> list[Entry]:
    """The pool beside the cases (grader.cases.pool), under `prefix`pool/, as it lies beside
    them: public puzzles only. None when the case set has no pool."""
    pool = pool_manifest(Path(manifest or default_manifest()))
    if not pool.is_file():
        return []
    return case_entries(pool, keep=lambda case: case.public, prefix=f"{prefix}pool/")[1]


LANGUAGE_NAMES = {lang.name: lang.display for lang in languages.REGISTRY}


def language_name(code: str) -> str:
    return LANGUAGE_NAMES.get(code, code)


def verdict_name(verdict: str | None) -> str:
    if verdict is None:
        return "not graded"
    return verdicts.NAMES.get(verdict, verdict)


def requirements_txt() -> str:
    """The grader's run-time dependencies, for a pip requirements file, from their one
    list: pyproject.toml's, as installed (the distribution's metadata) or, in a checkout
    without it, as written."""
    try:
        found = requires("scramble-grader")
    except PackageNotFoundError:
        found = _pyproject_dependencies()
    wanted = [r for r in found or () if "extra ==" not in r]
    return "\n".join(wanted) + "\n"


def _pyproject_dependencies() -> list[str]:
    pyproject = PACKAGE.parent / "pyproject.toml"
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        return list(data["project"]["dependencies"])
    except (OSError, ValueError, KeyError) as error:
        raise ExportError(
            f"cannot tell the grader's dependencies: the package is not "
            f"installed and {pyproject} cannot be read ({error})"
        ) from None


def write_folder(out: Path, entries: Sequence[Entry], keep_others: bool = False) -> None:
    """Write the entries into the folder `out`, whole or not at all: they are written
    into a new folder beside it that then takes its place (with keep_others, the files
    of the old one that no entry replaces are kept)."""
    out = Path(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        new = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
        old = new.with_name(new.name + ".old")
        try:
            if keep_others and out.is_dir():
                shutil.copytree(out, new, symlinks=True, dirs_exist_ok=True)
            for entry in entries:
                path = new / entry.name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(entry.data())
                path.chmod(0o755 if entry.executable else 0o644)
            new.chmod(0o755)
            if out.exists():
                out.rename(old)
            new.rename(out)
        finally:
            shutil.rmtree(new, ignore_errors=True)
            shutil.rmtree(old, ignore_errors=True)
    except OSError as error:
        raise ExportError(f"{out}: cannot write: {error.strerror or error}") from None
