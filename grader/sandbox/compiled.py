"""The sandbox's own small C programs (zygote.c, reaper.c), compiled once per source
with the system C compiler into a folder private to the grader."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from grader.sandbox.base import SetupError
from grader.sandbox.uids import UidSlots, private_folder


def built_for(source: Path, slots: UidSlots | None) -> Path | None:
    """`source` compiled into the grader's own folder (as root, the sandbox uids';
    else one of this user's alone); None where that cannot be done."""
    try:
        if slots is not None:
            slots.check_folder()
            folder = slots.folder
        else:
            folder = private_folder(Path(tempfile.gettempdir()) / f"scramble-grader-{os.geteuid()}")
        return compiled(source, folder)
    except (OSError, SetupError, subprocess.SubprocessError):
        return None


def compiled(source: Path, folder: Path) -> Path | None:
    """`source` compiled into `folder` (the grader's alone), once per content; None
    without a C compiler, or when it does not build (the caller falls back)."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    # The headers beside it are part of it (#include "...").
    parts = [source, *sorted(source.parent.glob("*.h"))]
    digest = hashlib.sha256(b"".join(part.read_bytes() for part in parts)).hexdigest()[:16]
    final = folder / f"{source.stem}-{digest}"
    if final.is_file():
        return final
    with tempfile.TemporaryDirectory(prefix=f".{source.stem}-", dir=folder) as tmp:
        built = Path(tmp) / source.stem
        done = subprocess.run(
            [compiler, "-O2", "-o", str(built), str(source)], capture_output=True, timeout=120
        )
        if done.returncode != 0:
            return None
        os.chmod(built, 0o755)
        os.replace(built, final)  # another grader may have been first: the same program
    return final
