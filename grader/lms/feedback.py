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
importziplib.php, is_valid_filename_for_import): Moodle splits a folder's name at its
first four `_` into full name, participant id, `assignfeedback`, `file`, so each page
is `<Full Name>_<participant id>_assignfeedback_file/feedback.html` with no `_` in the
name; files starting with `.` or `~` are ignored. A team's page goes to each of its
members (the grading worksheet named them at import).
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from grader.lms.moodle import clean_name
from grader.submission_meta import SubmissionMeta

PAGE = "feedback.html"


@dataclass
class FeedbackFiles:
    files: dict[str, str] = field(default_factory=dict)  # name in the zip -> page
    skipped: list[str] = field(default_factory=list)  # "submission id: why"


def canvas(
    pages: Mapping[str, str],
    metas: Mapping[str, SubmissionMeta | None],
    source_names: frozenset = frozenset(),
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
        if meta.team is None:
            people = [(meta.lms_user_id, meta.name)]
        else:
            people = [(m.lms_user_id, m.name or meta.name) for m in meta.team.members]
            if not people:
                out.skipped.append(
                    f"{sid}: a team whose members are not known (import with the grading "
                    "worksheet, --roster)"
                )
                continue
        for pid, name in people:
            folder = clean_name(name).strip() or "Participant"
            out.files[f"{folder}_{pid}_assignfeedback_file/{PAGE}"] = page
    return out
