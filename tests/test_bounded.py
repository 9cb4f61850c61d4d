"""grader.core.bounded: a file someone else made is read no further than a limit."""

import errno
import os

import pytest

from grader.core.bounded import NotAFile, TooLarge, read_limited

pytestmark = pytest.mark.fast


def test_a_file_within_the_limit_is_read_whole(tmp_path):
    (tmp_path / "f").write_bytes(b"12345")
    assert read_limited(tmp_path / "f", 5) == b"12345"
    with pytest.raises(TooLarge, match="5 bytes, more than the limit of 4") as error:
        read_limited(tmp_path / "f", 4)
    assert (error.value.size, error.value.limit) == (5, 4)


def test_a_file_larger_than_its_stated_size_is_stopped_while_reading():
    """/proc files state a size of 0 and hold more: the read stops past the limit."""
    assert os.stat("/proc/self/status").st_size == 0
    with pytest.raises(TooLarge, match="more bytes, more than the limit of 10") as error:
        read_limited("/proc/self/status", 10)
    assert error.value.size is None


def test_a_link_is_not_followed(tmp_path):
    (tmp_path / "secret").write_bytes(b"s")
    (tmp_path / "link").symlink_to(tmp_path / "secret")
    with pytest.raises(OSError) as error:
        read_limited(tmp_path / "link", 10)
    assert error.value.errno == errno.ELOOP


def test_a_fifo_or_a_folder_is_refused_without_waiting(tmp_path):
    os.mkfifo(tmp_path / "fifo")  # opened for reading, it would wait for a writer
    for path in (tmp_path / "fifo", tmp_path):
        with pytest.raises(NotAFile, match="not a regular file"):
            read_limited(path, 10)
