"""GitHub Classroom: the folder `gh classroom clone student-repos` makes.

gh-classroom (cmd/gh-classroom/clone/student-repos) clones each accepted
assignment's repository with `gh repo clone` into
`<dir>/<assignment slug>-submissions/<repository name>/`, one per student or team;
Classroom names a student's repository `<slug>-<username>`, a team's
`<slug>-<team>`. The folder to import is `<slug>-submissions` (or the one holding it).

Who a repository is for: the students GitHub lists for it (its grades download,
--grades; its accepted assignments, --accepted), else, for a student's own
repository, the username its name ends with. Each is a row of the classroom roster
(--roster classroom_roster.csv), found by their GitHub id, else their username
(grader.identity); a student's folder is named by the row's identifier, the course's
own id for them, a team's by its repository. A repository none of whose students a
row knows is named and not imported: never graded under a guess.

Its files are the clone's work tree without its hidden entries: `.git` (the history,
never a source file), the template's `.github` and kit; a link is never followed. Its
time is GitHub's record of the submission (the grades download's
`submission_timestamp`), never a commit's date, which is the student's to set:
without that download nobody has a time, and the late policy charges nobody. The
commit the clone holds (`.git`'s HEAD) is the submission's id.
"""

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from grader import identity
from grader.bounded import TooLarge, read_limited
from grader.identity import Key, Person
from grader.lms.classroom_lists import ClassroomList, Listed
from grader.lms.incoming import ImportOptions, Incoming, Parsed, newest, safe_id
from grader.lms.roster import Roster
from grader.lms.unpack import ArchiveError, Refused, UnpackLimits
from grader.submission_meta import Team, TeamMember

SUFFIX = "-submissions"  # gh-classroom's folder: `<slug>-submissions`
_FOLDER_NAME = re.compile(r"^[A-Za-z0-9_@+][A-Za-z0-9._@+-]*$")  # kept as it is
_COMMIT = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")
_HEAD_BYTES = 4096
MAX_DEPTH = 32  # folders in folders: deeper is not a program's source tree
_PACKED_REFS_BYTES = 8 << 20


@dataclass(frozen=True)
class _Student:
    """Someone a repository is for, as GitHub lists them, and their roster row."""

    listed: Listed
    row: int | None = None


def read(folder: Path, options: ImportOptions) -> Parsed:
    roster = options.roster
    if roster is None or not roster.is_classroom_roster():
        raise ArchiveError(
            "a GitHub Classroom import maps each repository to a student through the "
            "classroom's roster: --roster classroom_roster.csv (the classroom's Students "
            "tab, Download)"
        )
    root, slug = submissions_folder(Path(folder))
    lists = [found for found in (options.grades, options.accepted) if found is not None]
    parsed = Parsed(notes=_notes(options))
    for repo in _entries(root):
        if repo.name.startswith("."):
            continue
        if repo.is_symlink() or not repo.is_dir():
            parsed.refused.append(Refused(repo.name, "not a repository's folder: not imported"))
            continue
        students = _students(repo.name, slug, lists, roster, parsed.notes)
        known = [s for s in students if s.row is not None]
        if not known:
            parsed.refused.append(Refused(repo.name, _unknown(repo.name, students, roster)))
            continue
        incoming = _incoming(repo.name, students, roster, options)
        incoming.files, refused = _files(repo, options.limits)
        parsed.refused += refused
        incoming.submission_id = head_commit(repo / ".git")
        for student in students:
            if student.row is None:
                incoming.notes.append(
                    f"{student.listed.login}: no row of {roster.path.name} has this GitHub "
                    "username: gets nothing of the team's result"
                )
        parsed.students.append(incoming)
    return parsed


def submissions_folder(folder: Path) -> tuple[Path, str]:
    """(the folder of clones, the assignment's slug): `folder` itself, or the one
    `<slug>-submissions` folder inside it."""
    if not folder.is_dir():
        raise ArchiveError(f"{folder}: not a folder (gh classroom clone student-repos makes one)")
    if folder.name.endswith(SUFFIX):
        return folder, folder.name[: -len(SUFFIX)]
    inside = [p for p in _entries(folder) if p.is_dir() and p.name.endswith(SUFFIX)]
    if len(inside) == 1 and not (folder / ".git").exists():
        return inside[0], inside[0].name[: -len(SUFFIX)]
    return folder, ""


def _entries(folder: Path) -> list[Path]:
    try:
        return sorted(folder.iterdir(), key=lambda p: p.name)
    except OSError as error:
        raise ArchiveError(f"{folder}: cannot list the folder: {error.strerror}") from None


def _notes(options: ImportOptions) -> list[str]:
    notes = [
        "hidden files and folders (.git: the history; .github and the template's kit) "
        "are not imported: never a source file"
    ]
    if options.grades is None:
        notes.append(
            "no submission times: GitHub records them in the assignment's grades download "
            "(--grades grades.csv); a commit's date is the student's to set, so nobody is "
            "charged late"
        )
    else:
        notes += [
            f"{options.grades.source}: not a time: {entry}" for entry in options.grades.unreadable
        ]
    return notes


def _students(
    repo: str, slug: str, lists: list[ClassroomList], roster: Roster, notes: list[str]
) -> list[_Student]:
    """Who the repository is for, each with their roster row (None: no row, or two
    rows claim them: said in `notes`)."""
    listed: dict[str, Listed] = {}
    for found in lists:  # the grades download's identifier and time, the API's id
        for student in found.students(repo):
            key = student.login.lower()
            before = listed.get(key)
            listed[key] = _merged(before, student) if before else student
    if not listed:  # a student's own repository, by its name
        login = _login_of(repo, slug, roster)
        if login:
            listed[login.lower()] = Listed(login)
    people = [Person(login, student.login, _keys(student)) for login, student in listed.items()]
    rows = [roster.keys(row) for row in roster.rows]
    matching = identity.match(rows, [roster.label(row) for row in roster.rows], people)
    notes += [f"{repo}: {why}" for why in matching.refused]
    row_of = {login: index for index, login in matching.rows.items()}
    return [_Student(student, row_of.get(login)) for login, student in listed.items()]


def _merged(first: Listed, second: Listed) -> Listed:
    return Listed(
        first.login,
        first.github_id or second.github_id,
        first.identifier or second.identifier,
        first.submitted_at or second.submitted_at,
        first.group or second.group,
    )


def _keys(student: Listed) -> tuple[Key, ...]:
    keys = [identity.github_login(student.login)]
    if student.github_id:
        keys.insert(0, (identity.GITHUB_ID, student.github_id))
    return tuple(keys)


def _login_of(repo: str, slug: str, roster: Roster) -> str:
    """A student's own repository, `<slug>-<username>`: the username. Without the
    slug, the one roster username the name ends with (none when two would do)."""
    if slug:
        prefix = slug.lower() + "-"
        return repo[len(prefix) :] if repo.lower().startswith(prefix) else ""
    column = roster.column("github_username")
    assert column is not None, "a classroom roster has its github_username column"
    logins = {row[column].strip() for row in roster.rows if row[column].strip()}
    ends = [login for login in logins if repo.lower().endswith("-" + login.lower())]
    return ends[0] if len(ends) == 1 else ""


def _unknown(repo: str, students: list[_Student], roster: Roster) -> str:
    if not students:
        return (
            "a repository GitHub lists for nobody, and not named <assignment>-<username> "
            "of a roster username: not imported (a team's repository: --grades or "
            "--accepted name its members)"
        )
    logins = ", ".join(s.listed.login for s in students)
    return f"{logins}: in no row of {roster.path.name}: not imported, never graded under a guess"


def _incoming(
    repo: str, students: list[_Student], roster: Roster, options: ImportOptions
) -> Incoming:
    members = tuple(_member(student, roster) for student in students)
    groups = {s.listed.group for s in students if s.listed.group}
    when = newest(s.listed.submitted_at for s in students)
    source = options.grades.source if options.grades is not None and when else ""
    if len(students) == 1 and not groups:
        (member,) = members
        return Incoming(
            student_id=folder_name(member.lms_user_id),
            name=member.name,
            lms_user_id=member.lms_user_id,
            other_ids=member.other_ids,
            submitted_at=when,
            time_source=source,
            keys=member.keys,
        )
    group = sorted(groups)[0] if groups else repo
    return Incoming(
        student_id=safe_id(repo),
        name=group,
        lms_user_id="",
        other_ids=tuple(i for m in members for i in (m.lms_user_id, *m.other_ids) if i),
        submitted_at=when,
        time_source=source,
        team=Team(group_name=group, members=members),
    )


def _member(student: _Student, roster: Roster) -> TeamMember:
    """A student as their roster row knows them: its identifier their id."""
    keys = list(_keys(student.listed))
    if student.row is None:
        return TeamMember(student.listed.login, "", (), tuple(keys))
    row = roster.rows[student.row]
    keys += [k for k in roster.keys(row) if k not in keys]
    identifier = next((v for k, v in keys if k == identity.CLASSROOM_IDENTIFIER), "")
    ids = [identifier or student.listed.login, student.listed.login]
    if student.listed.github_id:
        ids.append(student.listed.github_id)
    name = roster.name(row) or identifier
    return TeamMember(ids[0], name, tuple(dict.fromkeys(ids[1:])), tuple(keys))


def folder_name(identifier: str) -> str:
    """The folder of a student named by their roster identifier: as it is where it is
    a plain name (an e-mail, a student number), else made one (incoming.safe_id)."""
    return identifier if _FOLDER_NAME.match(identifier) else safe_id(identifier)


def _files(repo: Path, limits: UnpackLimits) -> tuple[dict[PurePosixPath, bytes], list[Refused]]:
    """The work tree's files, hidden entries aside, no link followed, within the limits
    a download has."""
    files: dict[PurePosixPath, bytes] = {}
    refused: list[Refused] = []
    total = 0
    for path, relative in _walk(repo, PurePosixPath()):
        label = f"{repo.name}/{relative}"
        if len(files) >= limits.max_entries:
            refused.append(Refused(label, f"more than {limits.max_entries:,} files"))
            continue
        try:
            data = read_limited(path, min(limits.max_file_bytes, limits.max_total_bytes - total))
        except TooLarge as error:
            refused.append(Refused(label, f"too large: {error}"))
            continue
        except OSError as error:
            why = (
                "a symbolic link"
                if path.is_symlink()
                else "a folder nested too deep"
                if path.is_dir()
                else (error.strerror or str(error))
            )
            refused.append(Refused(label, f"{why}: not imported"))
            continue
        total += len(data)
        files[relative] = data
    return files, refused


def _walk(folder: Path, relative: PurePosixPath) -> Iterator[tuple[Path, PurePosixPath]]:
    """(path, its path in the repository) of every file below, not hidden; links and
    anything else not a file or folder yielded as they are, for the reader to refuse;
    a folder deeper than MAX_DEPTH yielded as it is too."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        try:
            mode = entry.stat(follow_symlinks=False).st_mode
        except OSError:
            mode = 0
        if stat.S_ISDIR(mode) and len(relative.parts) < MAX_DEPTH:
            yield from _walk(Path(entry.path), relative / entry.name)
        else:
            yield Path(entry.path), relative / entry.name


def head_commit(git: Path) -> str:
    """The commit a clone holds, read from `.git` (never run: git may not be there):
    HEAD, the branch it names, then packed-refs. "" when it cannot be told."""
    try:
        head = read_limited(git / "HEAD", _HEAD_BYTES).decode("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return ""
    if _COMMIT.match(head):
        return head
    if not head.startswith("ref: refs/"):
        return ""
    ref = head[len("ref: ") :]
    if ".." in ref.split("/"):
        return ""
    try:
        loose = read_limited(git.joinpath(*ref.split("/")), _HEAD_BYTES).decode("ascii").strip()
        return loose if _COMMIT.match(loose) else ""
    except (OSError, UnicodeDecodeError):
        pass
    try:
        packed = read_limited(git / "packed-refs", _PACKED_REFS_BYTES).decode("ascii", "replace")
    except OSError:
        return ""
    for line in packed.splitlines():
        commit, _, name = line.partition(" ")
        if name == ref and _COMMIT.match(commit):
            return commit
    return ""
