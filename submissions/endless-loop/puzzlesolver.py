#!/usr/bin/env python3
"""Scramble Squares solver.

python3 puzzlesolver.py INPUT

Depth-first search, one board cell at a time (row by row).  Each tile comes
with its four orientations; to avoid printing the same drawing twice for a
symmetric tile, orientations are collected until four *different* ones have
been found.
"""
import sys

BAR = "+--------+--------+--------+\n"


def turn(edges):
    """Quarter turn clockwise: the left edge comes to the top."""
    return (edges[3], edges[0], edges[1], edges[2])


def orientations(edges):
    result = [edges]
    current = edges
    while len(result) < 4:
        current = turn(current)
        if current not in result:
            result.append(current)
    return result


def joins(a, b):
    return a[0] == b[0] and a[1] != b[1]


def search(tiles):
    turns = [orientations(t) for t in tiles]
    placed = []
    used = [False] * 9
    boards = []

    def step():
        pos = len(placed)
        if pos == 9:
            boards.append(tuple(placed))
            return
        for t in range(9):
            if used[t]:
                continue
            # keep only the board rotation with the smallest corner at the top left
            if pos == 0 and t >= 6:
                continue
            if pos in (2, 6, 8) and t < placed[0][0]:
                continue
            for e in turns[t]:
                if pos % 3 != 0 and not joins(placed[pos - 1][1][1], e[3]):
                    continue
                if pos >= 3 and not joins(placed[pos - 3][1][2], e[0]):
                    continue
                used[t] = True
                placed.append((t, e))
                step()
                placed.pop()
                used[t] = False

    step()
    return boards


def render(board):
    text = BAR
    for r in (0, 3, 6):
        row = board[r:r + 3]
        text += "".join(f"|{t + 1}  {e[0]}   " for t, e in row) + "|\n"
        text += "".join(f"|{e[3]}    {e[1]}" for t, e in row) + "|\n"
        text += "".join(f"|   {e[2]}   " for t, e in row) + "|\n"
        text += BAR
    return text


def main():
    with open(sys.argv[1]) as handle:
        tiles = [tuple(x.strip() for x in line.split(","))
                 for line in handle.read().splitlines() if line.strip()]
    boards = search(tiles)
    drawn = sorted((tuple(t for t, _ in b), render(b)) for b in boards)

    out = "Input tiles:\n"
    for i, t in enumerate(tiles, 1):
        out += f"{i}. <{', '.join(t)}>\n"
    out += "\n"
    if not drawn:
        out += "No solution found.\n"
    else:
        out += "1 unique solution found:\n" if len(drawn) == 1 else f"{len(drawn)} unique solutions found:\n"
        out += "\n".join(text for _, text in drawn)
    sys.stdout.write(out)


if __name__ == "__main__":
    main()
