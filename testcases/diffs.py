"""Where two outputs first differ, said in one line."""


def _show(line: bytes | None) -> str:
    if line is None:
        return "nothing (the output has ended)"
    return repr(line.decode("ascii", "replace"))


def first_difference(old: bytes, new: bytes, old_name: str, new_name: str) -> str | None:
    """None when equal, else e.g. "line 12: the expected file has '|1  G0 ...',
    the reference prints '|1  B0 ...'" (lines keep their line ends, so a
    missing final newline or a CR shows)."""
    if old == new:
        return None
    old_lines = old.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    for number in range(1, max(len(old_lines), len(new_lines)) + 1):
        a = old_lines[number - 1] if number <= len(old_lines) else None
        b = new_lines[number - 1] if number <= len(new_lines) else None
        if a != b:
            return f"line {number}: {old_name} has {_show(a)}, {new_name} prints {_show(b)}"
    return "the bytes differ"  # unreachable: equal lines join to equal bytes
