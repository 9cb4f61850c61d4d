"""grader.core.settings on a dataclass of its own: the text shown, and read back."""

from dataclasses import dataclass, field

import pytest

from grader.core.settings.declare import BadSetting, Setting, positive, setting
from grader.core.settings.read import read
from grader.core.settings.show import show

pytestmark = pytest.mark.fast


@dataclass(frozen=True)
class Plain:  # declares nothing of the file: its keys are declared beside its table
    size: int = 3


@dataclass(frozen=True)
class Toy:
    buffer_bytes: int = field(
        default=4096, metadata=setting("", positive, name="buffer_kb", scale=1024)
    )
    mode: str = field(
        default="fast",
        metadata=setting(
            "wrapped in a column of its own, never in the middle of same-language or any "
            "other word, however long the line would be"
        ),
    )
    plain: Plain = field(
        default=Plain(), metadata=setting(keys={"size": Setting("how many", example="5")})
    )


def test_a_dataclass_is_shown_as_toml_with_its_comments():
    assert show(Toy(), "Toy settings.") == (
        "# Toy settings.\n"
        "\n"
        "buffer_kb = 4\n"
        'mode = "fast"             # wrapped in a column of its own, never in the middle of\n'
        "                          # same-language or any other word, however long the line would\n"
        "                          # be\n"
        "\n"
        "[plain]\n"
        "# size = 5                # how many\n"
    )


def test_what_is_shown_reads_back_and_keys_are_read_in_their_unit():
    assert read(Toy(), {}) == Toy()
    assert read(Toy(), {"buffer_kb": 2, "plain": {"size": 7}}) == Toy(2048, plain=Plain(7))
    with pytest.raises(BadSetting, match=r"^key 'plain\.size': must be int, not str '7'$"):
        read(Toy(), {"plain": {"size": "7"}})
