"""Where each feedback page goes in the zip an LMS's bulk upload of feedback files reads.

Canvas, "Re-Upload Submissions" (app/models/assignment.rb, generate_comments_from_files
and infer_comment_context_from_filename): Canvas splits a file's name at every `_`,
takes the first two all-digit parts as the user id and the id of one of that
submission's own attachments, and attaches the file to a comment ("See attached
file") on that submission, under that attachment's name; any other file is ignored
without a word. So each page is `<name>_<user id>_<attachment id>_feedback.html`,
with the attachment of the submitted source file where there is one, and a name of
letters only (no digit part before the ids). An anonymous submission has no user id
to give until Canvas reveals the names.

Moodle, "Upload multiple feedback files in a zip" (mod/assign/feedback/file/
importziplib.php, is_valid_filename_for_import and get_participant_mapping): Moodle
splits a folder's name at its first four `_` into a name, a number, `assignfeedback`,
`file`; files starting with `.` or `~` are ignored, and so is a folder whose number it
does not know, without a word. The number is a participant id in an individual
assignment: `<Full Name>_<participant id>_assignfeedback_file/feedback.html`. With
team submissions it is the GROUP id (as the download's folders have it), and Moodle
gives the page to every member of that group: `<Group name>_<group id>_...`; the
students in no group ("Default group") are under no number, so no zip reaches them:
their page is named, to be uploaded by hand. (4.1.0 to 4.1.10 and 4.2 read a team's
number as a participant id: there a team's page reaches no one, or a stranger.) The
name holds no `_`: Moodle's own download turns them into spaces.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from grader.course.submission_meta import SubmissionMeta
from grader.lms.moodle_names import clean_name

PAGE = "feedback.html"
_MOODLE_FOLDER = f"assignfeedback_file/{PAGE}"


@dataclass
class FeedbackFiles:
    files: dict[str, str] = field(default_factory=dict)  # name in the zip -> page
    skipped: list[str] = field(default_factory=list)  # "submission id: why"


def canvas(
    pages: Mapping[str, str],
    metas: Mapping[str, SubmissionMeta | None],
    source_names: frozenset[str] = frozenset(),
) -> FeedbackFiles:
    """pages and metas: by submission id (the folder's name)."""
    out = FeedbackFiles()
    for sid, page in pages.items():
        meta = metas.get(sid)
        if meta is None or meta.lms != "canvas":
            out.skipped.append(f"{sid}: not imported from Canvas")
        elif meta.anonymous_id:
            out.skipped.append(
                f"{sid}: anonymous (no user id until Canvas reveals the names: download, "
                "import and export again then)"
            )
        elif not meta.attachments or not meta.lms_user_id.isdigit():
            out.skipped.append(
                f"{sid}: no Canvas attachment id recorded (imported by an older grader: "
                "import the download again)"
            )
        else:
            sources = sorted(
                (a for name, a in meta.attachments.items() if name in source_names), key=int
            )
            attachment = (sources or sorted(meta.attachments.values(), key=int))[0]
            name = re.sub(r"[^a-z]", "", meta.name.lower()) or "student"
            out.files[f"{name}_{meta.lms_user_id}_{attachment}_{PAGE}"] = page
    return out


def moodle(pages: Mapping[str, str], metas: Mapping[str, SubmissionMeta | None]) -> FeedbackFiles:
    out = FeedbackFiles()
    for sid, page in pages.items():
        meta = metas.get(sid)
        if meta is None or meta.lms != "moodle":
            out.skipped.append(f"{sid}: not imported from Moodle")
            continue
        number, name, why = _moodle_key(meta)
        if why:
            out.skipped.append(f"{sid}: {why}")
            continue
        out.files[f"{clean_name(name).strip() or 'Participant'}_{number}_{_MOODLE_FOLDER}"] = page
    return out


def _moodle_key(meta: SubmissionMeta) -> tuple[str, str, str]:
    """(the number Moodle's zip import maps to the page's people, the folder's name,
    "" or why no folder reaches them)."""
    team = meta.team
    if team is None:
        if not meta.lms_user_id.isdigit():
            return "", "", "no participant id recorded (import Moodle's download again)"
        return meta.lms_user_id, meta.name, ""
    if team.default_group:
        return (
            "",
            "",
            (
                "Moodle's default group (students in no group): its zip upload gives a page "
                "to no one in no group; upload this page to each of them by hand, or put them "
                "in a group"
            ),
        )
    if not team.group_id.isdigit():
        return "", "", "no group id recorded (import Moodle's download again)"
    return team.group_id, team.group_name or "Group", ""
