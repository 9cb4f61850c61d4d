# puzzlesolver.py
# Scramble Squares: print every unique solution of a 3x3 puzzle.
# usage: python3 puzzlesolver.py <puzzle file>

import sys

WIDTH = 3 * 9 + 3  # three cells of 9 characters plus the borders
BORDER = "+" + "+".join(["-" * 8] * 3) + "+"


def rotations(edges):
    """Distinct rotations of a tile (top, right, bottom, left), clockwise turns."""
    out = []
    cur = list(edges)
    for _ in range(4):
        if cur not in out:
            out.append(list(cur))
        cur = [cur[3], cur[0], cur[1], cur[2]]
    return out


def fits(a, b):
    return a[0] == b[0] and a[1] != b[1]


def find_solutions(tiles):
    options = [rotations(t) for t in tiles]
    grid = [None] * 9  # (tile index, edges)
    free = [True] * 9
    results = []

    def go(pos):
        if pos == 9:
            results.append(tuple((i, tuple(e)) for i, e in grid))
            return
        for i in range(9):
            if not free[i]:
                continue
            if pos == 0 and i > 5:
                return
            if pos in (2, 6, 8) and i < grid[0][0]:
                continue
            free[i] = False
            for e in options[i]:
                if pos % 3 and not fits(grid[pos - 1][1][1], e[3]):
                    continue
                if pos > 2 and not fits(grid[pos - 3][1][2], e[0]):
                    continue
                grid[pos] = (i, e)
                go(pos + 1)
            free[i] = True

    go(0)
    return results


def board_lines(sol):
    lines = [BORDER]
    for r in range(3):
        row = sol[3 * r:3 * r + 3]
        top = mid = bot = ""
        for i, e in row:
            top += "|%d  %s   " % (i + 1, e[0])
            mid += "|%s    %s" % (e[3], e[1])
            bot += "|   %s   " % e[2]
        lines += [top + "|", mid + "|", bot + "|", BORDER]
    return [line.ljust(WIDTH) for line in lines]


def main():
    text = open(sys.argv[1]).read()
    tiles = [[e.strip() for e in ln.split(",")] for ln in text.splitlines() if ln.strip()]

    sols = find_solutions(tiles)
    drawn = sorted(("".join(str(i + 1) for i, _ in s), "\n".join(board_lines(s))) for s in sols)

    print("Input tiles:")
    for k, t in enumerate(tiles):
        print("%d. <%s>" % (k + 1, ", ".join(t)))
    print()
    if len(drawn) == 0:
        print("No solution found.")
        return
    if len(drawn) == 1:
        print("1 unique solution found:")
    else:
        print("%d unique solutions found:" % len(drawn))
    print("\n\n".join(d for _, d in drawn))


main()
