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
(grader.course.identity); a student's folder is named by the row's identifier, the course's
own id for them, a team's by its repository. A repository none of whose students a
row knows is named and not imported: never graded under a guess.

Which commit is the submission: Classroom's own rule. At the assignment's deadline
it takes the default branch's commit as the submission (its maintainers: "At this
time, Classroom will fetch the latest commit SHA from each assignment repo and save
that as the submission SHA"), while `gh classroom clone` clones the branch as it is
now. So, with a deadline (Classroom's, from --accepted; else the course's [late]
deadline), the import reads the clone's default branch with git (grader/lms/
git_clone.py) and grades the commit at the deadline: the last one on the branch's
own line dated at or before it, unless GitHub's record of the submission (the
grades download's `submission_timestamp`) is at or before the deadline, when the
branch as cloned is what GitHub had. Every later commit is named; where the course's
late policy takes late work (a deadline with a penalty capped below 100 %), the
newest is graded instead, as late, with its own time (GitHub's record when that is
after the deadline, else its commit date, named as the committer's clock). The note
says which commit was graded and why. Without git, or without a deadline, the commit
the clone holds (`.git`'s HEAD) is graded, and the import says so.

Its files are that commit's, hidden entries aside: `.git` (the history, never a source
file), the template's `.github` and kit; a link is never followed. A file the clone
holds but no build can use (a link, a Git LFS pointer, a submodule) is named in the
student's report with why. Its time is GitHub's record of the submission, never a
commit's date, which is the student's to set (but for a late commit graded without
one, as said above): without the grades download nobody has a time, and the late
policy charges nobody. The commit graded is the submission's id.
"""

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath

from grader.core.bounded import TooLarge, read_limited
from grader.course import identity
from grader.course.identity import Key, Person
from grader.course.submission_meta import Team, TeamMember
from grader.course.zones import instant
from grader.lms import git_clone
from grader.lms.classroom_lists import ClassroomList, Listed
from grader.lms.incoming import ImportOptions, Incoming, Parsed, newest, safe_id
from grader.lms.roster import Roster
from grader.lms.unpack import ArchiveError, Refused, UnpackLimits

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
    deadline = _Deadline.of(options, parsed.notes)
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
        deadline.graded(repo, incoming, parsed)
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
            "no submission times from GitHub (its grades download, --grades grades.csv, "
            "records them): only a commit's own date is known, the committer's clock, "
            "which picks the commit at the deadline and times a late commit graded as late"
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


@dataclass
class _Deadline:
    """Classroom's deadline (or the course's), and what the course's late policy takes:
    which commit of each clone is graded."""

    at: datetime | None  # aware
    said: str  # where it comes from, for the notes
    late_taken: bool  # the course's late policy grades late work (penalty capped < 100 %)
    limits: UnpackLimits
    no_git: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, options: ImportOptions, notes: list[str]) -> "_Deadline":
        policy = options.late
        taken = policy.enabled and policy.max_percent < 100
        listed = options.accepted.deadlines if options.accepted is not None else set()
        if len(listed) > 1:
            notes.append(
                f"{options.accepted.source if options.accepted else ''}: the accepted "
                "assignments give several deadlines: the latest counts"
            )
        if listed:
            when = max(listed)
            return cls(when, f"Classroom's deadline {_shown(when)}", taken, options.limits)
        if policy.deadline is not None:
            when = instant(policy.deadline, policy.zone)
            return cls(when, f"the course's deadline {_shown(when)}", taken, options.limits)
        notes.append(
            "no deadline known (--accepted gives Classroom's, [late] deadline the "
            "course's): each clone's checked-out commit is graded, whatever came after"
        )
        return cls(None, "", taken, options.limits)

    def graded(self, repo: Path, incoming: Incoming, parsed: Parsed) -> None:
        """The commit of `repo` to grade, its files and what the import says of it."""
        try:
            commits = git_clone.history(repo) if self.at is not None else []
        except git_clone.GitNotFound:
            if not self.no_git:
                parsed.notes.append(
                    "git is not installed here: the commit at the deadline cannot be "
                    "read from the clones; each clone's checked-out commit is graded"
                )
            self.no_git.append(repo.name)
            commits = []
        except git_clone.GitFailed as error:
            incoming.notes.append(f"{error}: its checked-out commit is graded")
            commits = []
        if not commits:
            _work_tree(repo, incoming, parsed, self.limits)
            return
        chosen = self._choose(commits, incoming)
        if chosen is None:
            return
        try:
            found = git_clone.tree(repo, chosen.sha, self.limits)
        except git_clone.GitFailed as error:
            incoming.notes.append(f"{error}: its checked-out commit is graded")
            _work_tree(repo, incoming, parsed, self.limits)
            return
        incoming.files, incoming.unusable = found.files, found.unusable
        incoming.submission_id = chosen.sha
        parsed.refused += [Refused(f"{repo.name}/{p}", why) for p, why in found.over]
        parsed.refused += [
            Refused(f"{repo.name}/{p}", f"{why}: not imported") for p, why in found.unusable.items()
        ]

    def _choose(
        self, commits: list[git_clone.Commit], incoming: Incoming
    ) -> git_clone.Commit | None:
        """The commit graded, said in the student's notes; None: nothing to grade."""
        assert self.at is not None, "called only with a deadline"
        head, record = commits[0], incoming.submitted_at
        if record is not None and record <= self.at:
            incoming.notes.append(
                f"graded commit {head.sha[:12]}, the default branch as cloned: GitHub's "
                f"record of the submission ({_shown(record)}) is not after {self.said}"
            )
            return head
        on_time = next((c for c in commits if c.committed <= self.at), None)
        later = commits[: commits.index(on_time)] if on_time is not None else commits
        if not later:
            incoming.notes.append(
                f"graded commit {head.sha[:12]}, the newest on the default branch, dated "
                f"{_shown(head.committed)} (the committer's clock), not after {self.said}"
            )
            return head
        named = ", ".join(f"{c.sha[:12]} ({_shown(c.committed)})" for c in later[:5])
        more = f" and {len(later) - 5} more" if len(later) > 5 else ""
        if self.late_taken:
            self._late(head, incoming, on_time, f"{named}{more}")
            return head
        if on_time is None:
            incoming.notes.append(
                f"no commit of the default branch is dated at or before {self.said} "
                f"(its commits: {named}{more}; the committer's clock), and the course's "
                "late policy takes no late work: nothing to grade"
            )
            return None
        incoming.notes.append(
            f"graded commit {on_time.sha[:12]} ({_shown(on_time.committed)}, the committer's "
            f"clock), the last on the default branch at {self.said}, as Classroom takes "
            f"the submission; later, not graded (the course's late policy takes no late "
            f"work): {named}{more}"
        )
        if record is not None:  # GitHub's record is of a later push, not of this commit
            incoming.submitted_at, incoming.time_source = None, ""
        return on_time

    def _late(
        self,
        head: git_clone.Commit,
        incoming: Incoming,
        on_time: git_clone.Commit | None,
        later: str,
    ) -> None:
        """The newest commit, graded as late with its own time."""
        if incoming.submitted_at is None:
            incoming.submitted_at = head.committed
            incoming.time_source = f"the commit date of {head.sha[:12]} (the committer's clock)"
        before = (
            f"the commit at {self.said} was {on_time.sha[:12]}"
            if on_time is not None
            else f"no commit is dated at or before {self.said}"
        )
        incoming.notes.append(
            f"graded commit {head.sha[:12]}, the newest on the default branch, as late "
            f"work (the course's late policy takes it; submitted {_shown(incoming.submitted_at)}"
            f", {incoming.time_source}): {before}; after it: {later}"
        )


def _shown(when: datetime) -> str:
    return when.isoformat(sep=" ", timespec="minutes")


def _work_tree(repo: Path, incoming: Incoming, parsed: Parsed, limits: UnpackLimits) -> None:
    """The clone's checked-out files, as they are on disk."""
    incoming.files, refused, incoming.unusable = _files(repo, limits)
    parsed.refused += refused
    incoming.submission_id = head_commit(repo / ".git")


def _files(
    repo: Path, limits: UnpackLimits
) -> tuple[dict[PurePosixPath, bytes], list[Refused], dict[str, str]]:
    """The work tree's files, hidden entries aside, no link followed, within the limits
    a download has; (files, refused, the unusable ones: path -> why)."""
    files: dict[PurePosixPath, bytes] = {}
    refused: list[Refused] = []
    unusable: dict[str, str] = {}
    submodules = _submodule_paths(repo)
    total = 0
    for path, relative in _walk(repo, PurePosixPath()):
        label = f"{repo.name}/{relative}"
        why = _unusable(path, relative, submodules)
        if why is not None:
            unusable[str(relative)] = why
            refused.append(Refused(label, f"{why}: not imported"))
            continue
        if len(files) >= limits.max_entries:
            refused.append(Refused(label, f"more than {limits.max_entries:,} files"))
            continue
        try:
            data = read_limited(path, min(limits.max_file_bytes, limits.max_total_bytes - total))
        except TooLarge as error:
            refused.append(Refused(label, f"too large: {error}"))
            continue
        except OSError as error:
            why = "a folder nested too deep" if path.is_dir() else (error.strerror or str(error))
            refused.append(Refused(label, f"{why}: not imported"))
            continue
        if data.startswith(git_clone.LFS_POINTER):
            unusable[str(relative)] = git_clone.lfs_reason()
            refused.append(Refused(label, f"{git_clone.lfs_reason()}: not imported"))
            continue
        total += len(data)
        files[relative] = data
    return files, refused, unusable


def _unusable(path: Path, relative: PurePosixPath, submodules: set[str]) -> str | None:
    """Why an entry of the work tree is no file to use: a link, a submodule's empty
    folder (None: read it)."""
    if path.is_symlink():
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        return f"a symbolic link in the repository (to {target}): never followed; commit the file itself"
    if path.is_dir() and str(relative) in submodules:
        return (
            "a git submodule, empty in the clone (its files are in another repository, "
            "which the clone does not fetch)"
        )
    return None


def _submodule_paths(repo: Path) -> set[str]:
    """The paths `.gitmodules` gives its submodules (`path = ...`)."""
    try:
        text = read_limited(repo / ".gitmodules", 1 << 20).decode("utf-8", "replace")
    except OSError:
        return set()
    return {
        value.strip().strip("/")
        for line in text.splitlines()
        if (pair := line.split("=", 1))[0].strip() == "path" and len(pair) == 2
        for value in (pair[1],)
    }


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
            inside = list(_walk(Path(entry.path), relative / entry.name))
            # An empty folder git cannot hold: a submodule the clone did not fetch.
            yield from inside or [(Path(entry.path), relative / entry.name)]
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
