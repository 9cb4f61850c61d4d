"""Gradescope's "Export Submissions": a folder per submission and one metadata file.

The zip holds `submission_metadata.yml` (usually under `assignment_<id>_export/`)
and, beside it, `submission_<id>/` with the files as the student uploaded them
(a student's own file of that name, inside their folder, is just their file).
The metadata maps each `submission_<id>` (Ruby-style `:key:` names) to its
`:submitters:` (`:name:`, `:sid:`, `:email:`) and `:created_at:`, the submission
time with its UTC offset. The folder name is the first submitter's student id
(sid), else their e-mail, else the submission's own id; every member of a group
is kept in the metadata (its team's members) so a roster finds each of them.
"""

import re
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any

from grader.course import identity
from grader.course.submission_meta import Team, TeamMember
from grader.lms.incoming import ImportOptions, Incoming, Parsed, download_time, safe_id
from grader.lms.unpack import ArchiveError, Refused, Unpacked, read_zip

META_FILE = "submission_metadata.yml"
_SUBMISSION = re.compile(r"^submission_\d+$")  # a submission's folder


def read(archive: Path, options: ImportOptions) -> Parsed:
    unpacked = read_zip(archive, options.limits)
    parsed = parse(unpacked, options.source_names)
    parsed.downloaded = download_time(unpacked, "Gradescope", Path(archive).name, parsed.notes)
    return parsed


def parse(unpacked: Unpacked, source_names: frozenset[str] = frozenset()) -> Parsed:
    parsed = Parsed(refused=list(unpacked.refused))
    # Gradescope's own metadata sits beside the submission folders; a file of that
    # name inside one of them is that student's file, whatever its name.
    metas = [
        m
        for m in unpacked.members
        if m.path.name == META_FILE and not any(_SUBMISSION.match(p) for p in m.path.parts)
    ]
    if len(metas) != 1:
        raise ArchiveError(
            f"not a Gradescope export: expected one {META_FILE} beside the "
            f"submission_<id> folders, found {len(metas)}"
        )
    root = metas[0].path.parent
    entries = _metadata(metas[0].data)
    students: dict[str, Incoming] = {}
    for member in unpacked.members:
        if member is metas[0]:
            continue
        try:
            relative = member.path.relative_to(root)
        except ValueError:
            relative = None
        if relative is None or len(relative.parts) < 2:
            parsed.refused.append(
                Refused(str(member.path), "not inside a submission folder of the export")
            )
            continue
        key, *inside = relative.parts
        entry = entries.get(key)
        if entry is None:
            parsed.refused.append(Refused(str(member.path), f"{key} is not listed in {META_FILE}"))
            continue
        student = students.get(key) or students.setdefault(key, _incoming(key, entry))
        student.files[PurePosixPath(*inside)] = member.data
    parsed.students.extend(students[key] for key in sorted(students))
    return parsed


def _metadata(data: bytes) -> dict[str, dict[str, Any]]:
    try:
        import yaml
    except ImportError:
        raise ArchiveError(
            "reading a Gradescope export needs PyYAML (pip install pyyaml)"
        ) from None
    try:
        document = yaml.safe_load(data.decode("utf-8"))
    except (UnicodeDecodeError, yaml.YAMLError) as error:
        raise ArchiveError(
            f"{META_FILE} is not readable YAML: {str(error).splitlines()[0]}"
        ) from None
    document = _plain_keys(document)
    if not isinstance(document, dict):
        raise ArchiveError(f"{META_FILE}: expected a mapping of submissions")
    return {str(k): v for k, v in document.items() if isinstance(v, dict)}


def _plain_keys(value: object) -> object:
    """Ruby symbols come out of YAML as ':name' strings: drop the colon."""
    if isinstance(value, dict):
        return {
            (k.lstrip(":") if isinstance(k, str) else k): _plain_keys(v) for k, v in value.items()
        }
    if isinstance(value, list):
        return [_plain_keys(v) for v in value]
    return value


def _incoming(key: str, entry: dict[str, Any]) -> Incoming:
    submitters = [s for s in entry.get("submitters") or [] if isinstance(s, dict)]
    first = submitters[0] if submitters else {}
    ident = str(first.get("sid") or first.get("email") or key)
    others: list[str] = []
    for person in submitters:
        others.extend(str(person[k]) for k in ("sid", "email") if person.get(k))
    subid = key.split("_", 1)[1] if key.startswith("submission_") else key
    members = tuple(_member(person) for person in submitters)
    return Incoming(
        student_id=safe_id(ident),
        name=" & ".join(str(s.get("name", "")) for s in submitters),
        lms_user_id=subid,
        submission_id=subid,
        other_ids=tuple(others),
        submitted_at=_time(entry.get("created_at")),
        time_source=META_FILE,
        team=Team(members=members) if len(members) > 1 else None,
        keys=members[0].keys if len(members) == 1 else (),
    )


def _member(person: dict[str, Any]) -> TeamMember:
    """A submitter: known by their sid, else their e-mail; the e-mail kept beside a sid
    (a roster may know either, through a declared alias: grader.course.identity)."""
    ids = [str(person[k]) for k in ("sid", "email") if person.get(k)]
    keys = [(kind, str(person[k])) for k, kind in _KINDS if person.get(k)]
    return TeamMember(
        ids[0] if ids else "", str(person.get("name", "")), tuple(ids[1:]), tuple(keys)
    )


_KINDS = (("sid", identity.GRADESCOPE_SID), ("email", identity.GRADESCOPE_EMAIL))


def _time(value: object) -> datetime | None:
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str):
        return None
    text = value.strip()
    # Gradescope writes "2026-03-01 23:59:12.345678901 -0500" or "... -05:00":
    # nanoseconds and a space before the offset, which fromisoformat rejects.
    date, _, rest = text.partition(" ")
    clock, _, offset = rest.partition(" ")
    if "." in clock:
        whole, frac = clock.split(".", 1)
        clock = f"{whole}.{frac[:6].ljust(6, '0')}"
    if offset and ":" not in offset and len(offset) == 5:
        offset = offset[:3] + ":" + offset[3:]
    try:
        return datetime.fromisoformat(f"{date}T{clock}{offset}")
    except ValueError:
        return None
