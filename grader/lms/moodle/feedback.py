"""Where each feedback page goes in the zip Moodle reads.

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

from collections.abc import Mapping

from grader.course.submission_meta import SubmissionMeta
from grader.lms.feedback import PAGE, FeedbackFiles
from grader.lms.moodle_names import clean_name

_FOLDER = f"assignfeedback_file/{PAGE}"


def files(pages: Mapping[str, str], metas: Mapping[str, SubmissionMeta | None]) -> FeedbackFiles:
    out = FeedbackFiles()
    for sid, page in pages.items():
        meta = metas.get(sid)
        if meta is None or meta.lms != "moodle":
            out.skipped.append(f"{sid}: not imported from Moodle")
            continue
        number, name, why = _key(meta)
        if why:
            out.skipped.append(f"{sid}: {why}")
            continue
        out.files[f"{clean_name(name).strip() or 'Participant'}_{number}_{_FOLDER}"] = page
    return out


def _key(meta: SubmissionMeta) -> tuple[str, str, str]:
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
