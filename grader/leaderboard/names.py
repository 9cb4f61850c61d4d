"""Stable, secret pseudonyms for a published leaderboard, and the instructor's key."""

import hashlib
import hmac
import os
import secrets
from collections.abc import Callable, Sequence
from pathlib import Path

from grader.store import StoreError

SALT_FILE = "leaderboard.salt"


PSEUDONYM_KEY = "leaderboard-pseudonyms.csv"


def pseudonyms(results: Path) -> Callable[[str], str]:
    """Stable pseudonyms: HMAC-SHA256 of the id under a secret salt kept in the
    results folder (created once, readable by its owner only). Without the
    salt a student cannot test a classmate's name against a pseudonym."""
    path = Path(results) / SALT_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_hex(32) + "\n")
    except FileExistsError:
        pass
    except OSError as error:
        raise StoreError(
            f"{path}: cannot create the pseudonym salt: {error.strerror or error}"
        ) from None
    try:
        salt = path.read_text().strip().encode()
    except OSError as error:
        raise StoreError(
            f"{path}: cannot read the pseudonym salt: {error.strerror or error}"
        ) from None
    if len(salt) < 32:
        raise StoreError(
            f"{path}: the pseudonym salt is damaged (too short); delete it to "
            "make a new one (every pseudonym then changes)"
        )

    def name(sid: str) -> str:
        return "anon-" + hmac.new(salt, sid.encode(), hashlib.sha256).hexdigest()[:10]

    return name


def write_pseudonym_key(results: Path, ids: Sequence[str], name: Callable[[str], str]) -> Path:
    """pseudonym -> id for the instructor (who awards the bonus and tells each student
    their own pseudonym), readable by its owner only, never published."""
    path = Path(results) / PSEUDONYM_KEY
    lines = ["pseudonym,id"] + [f"{name(sid)},{sid}" for sid in sorted(ids)]
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
    except OSError as error:
        raise StoreError(f"{path}: cannot write: {error.strerror or error}") from None
    return path
