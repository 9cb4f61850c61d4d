"""Files written whole or not at all."""

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Iterator


@contextmanager
def atomic_output(path: Path) -> Iterator[BinaryIO]:
    """A binary handle on a temporary file beside `path`. When the block ends
    normally the file replaces `path` (mode 0644: results are meant to be read
    and published); when it fails (full disk, no permission) the previous
    version stays and no stray file is left. OSError propagates."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
        os.chmod(tmp, 0o644)  # mkstemp makes 0600
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
