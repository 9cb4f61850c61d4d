"""The version of the judging rules: derived from the grader's own code, never bumped by
hand (so no one can forget to).

Every stored verdict records the version it was judged under (store: runs.rules). Any
change to a module of the grader may change a verdict, a diagnosis or a kind (the
comparison, the causes, what the source shows, how a run's measurements are read), so
the version is a digest of every module of the package: after an upgrade or an edit,
`grade` judges the stored runs again (grader.grading.rejudge) before any grade leaves.
"""

import hashlib
from functools import cache
from pathlib import Path

from grader import PACKAGE


@cache  # the code does not change while a process runs
def rules_version() -> str:
    """The digest of this grader's own package."""
    return code_digest(PACKAGE)


def code_digest(package: Path) -> str:
    """A digest of every Python module of a package (names and bytes)."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        digest.update(path.relative_to(package).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]
