"""Writing a puzzle in the letter format, with the line ends asked for."""

from collections.abc import Sequence


def format_puzzle(
    tiles: Sequence[Sequence[str]], crlf: bool = False, final_newline: bool = True
) -> bytes:
    newline = "\r\n" if crlf else "\n"
    text = newline.join(",".join(tile) for tile in tiles)
    if final_newline:
        text += newline
    return text.encode("ascii")
