"""Where each feedback page goes in the zip Canvas reads.

Canvas, "Re-Upload Submissions" (app/models/assignment.rb, generate_comments_from_files
and infer_comment_context_from_filename): Canvas splits a file's name at every `_`,
takes the first two all-digit parts as the user id and the id of one of that
submission's own attachments, and attaches the file to a comment ("See attached
file") on that submission, under that attachment's name; any other file is ignored
without a word. So each page is `<name>_<user id>_<attachment id>_feedback.html`,
with the attachment of the submitted source file where there is one, and a name of
letters only (no digit part before the ids). An anonymous submission has no user id
to give until Canvas reveals the names.
"""

import re
from collections.abc import Mapping

from grader.course.submission_meta import SubmissionMeta
from grader.lms.feedback import PAGE, FeedbackFiles


def files(
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
