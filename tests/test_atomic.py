"""grader.core.atomic: files written whole or not at all, under any name the file system takes."""

import os

import pytest

from grader.core.atomic import WriteError, atomic_output, write_file

pytestmark = pytest.mark.fast

NAME_MAX = 255  # bytes in one file name (Linux, macOS)


@pytest.mark.parametrize(
    "name",
    [
        "é" * 127 + "x",  # 255 bytes of UTF-8, two per letter but the last
        "a" * 255,
        "€" * 85,  # 255 bytes, three per character: a cut would split one
        b"\xff".decode("utf-8", "surrogateescape") * 255,  # not UTF-8 at all
    ],
)
def test_a_name_of_the_longest_legal_length_is_written(tmp_path, name):
    assert len(os.fsencode(name)) == NAME_MAX
    write_file(tmp_path / name, b"data")
    assert (tmp_path / name).read_bytes() == b"data"
    assert os.listdir(tmp_path) == [name]  # no temporary file left behind


def test_a_failed_write_keeps_the_old_file_and_leaves_nothing(tmp_path):
    target = tmp_path / ("é" * 127 + "x")
    write_file(target, b"old")
    with pytest.raises(RuntimeError), atomic_output(target) as handle:
        handle.write(b"half")
        raise RuntimeError("the disk filled")
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == [target.name]


def test_a_name_longer_than_the_file_system_allows_is_one_clear_error(tmp_path):
    with pytest.raises(WriteError, match="File name too long"):
        write_file(tmp_path / ("a" * 256), b"x")
    assert os.listdir(tmp_path) == []
