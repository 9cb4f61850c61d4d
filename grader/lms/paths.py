"""Which of one student's files can stand together in their folder.

An upload is a set of paths, and the archive format lets two of them disagree: a
file `src` beside `src/puzzlesolver.c` (a zip the student uploaded, holding both, or
Canvas's flat file and a zip's folder), or a file named like the import's own
metadata. Such an entry is refused with the reason before anything is written, so
the rest of that student, and every other student, is imported whole.
"""

from pathlib import PurePosixPath

from grader.course.submission_meta import META_NAME
from grader.lms.unpack import Refused


def conflicts(student_id: str, paths: list[PurePosixPath]) -> dict[PurePosixPath, Refused]:
    """The paths that cannot be written beside the others, each with why."""
    folders: dict[PurePosixPath, PurePosixPath] = {}  # folder -> a file inside it
    for path in sorted(paths):
        for parent in path.parents:
            if parent != PurePosixPath("."):
                folders.setdefault(parent, path)
    refused = {}
    for path in paths:
        why = None
        if path == PurePosixPath(META_NAME):
            why = f"named like the import's own metadata file ({META_NAME}): not written"
        elif path in folders:
            why = (
                f"a file, and also the folder holding {folders[path]} in the same upload: "
                "the folder is kept"
            )
        if why is not None:
            refused[path] = Refused(f"{student_id}/{path}", why)
    return refused
