"""Scramble Squares puzzle solver (CS 2, assignment 3).

Run:  python3 puzzlesolver.py puzzle.txt
"""
import sys

TOP, RIGHT, BOTTOM, LEFT = 0, 1, 2, 3
LINE = "+--------+--------+--------+"


class Piece:
    """A tile turned to one orientation."""

    def __init__(self, number, edges):
        self.number = number
        self.edges = edges

    def fits(self, other, my_side, their_side):
        mine, theirs = self.edges[my_side], other.edges[their_side]
        return mine[0] == theirs[0] and mine[1] != theirs[1]


class Puzzle:
    def __init__(self, tiles):
        self.tiles = tiles
        self.pieces = []  # pieces[t] = orientations of tile t (no look twice)
        for number, edges in enumerate(tiles, 1):
            turns = []
            for k in range(4):
                turned = edges[4 - k:] + edges[:4 - k]
                if all(p.edges != turned for p in turns):
                    turns.append(Piece(number, turned))
            self.pieces.append(turns)
        self.solutions = []

    def solve(self):
        self.grid = [None] * 9
        self.taken = [False] * 10
        self.fill(0)
        self.solutions.sort(key=lambda grid: (self.digits(grid), draw(grid)))

    def fill(self, cell):
        if cell == 9:
            self.solutions.append(list(self.grid))
            return
        for number in range(1, 10):
            if self.taken[number]:
                continue
            # only search the rotation of the board that starts with the smallest corner
            if cell == 0 and number > 6:
                break
            if cell in (2, 6, 8) and number < self.grid[0].number:
                continue
            self.taken[number] = True
            for piece in self.pieces[number - 1]:
                if cell % 3 and not piece.fits(self.grid[cell - 1], LEFT, RIGHT):
                    continue
                if cell >= 3 and not piece.fits(self.grid[cell - 3], TOP, BOTTOM):
                    continue
                self.grid[cell] = piece
                self.fill(cell + 1)
            self.taken[number] = False

    @staticmethod
    def digits(grid):
        return "".join(str(p.number) for p in grid)


def draw(grid):
    rows = [LINE]
    for r in range(0, 9, 3):
        row = grid[r:r + 3]
        rows.append("".join("|%d  %s   " % (p.number, p.edges[TOP]) for p in row) + "|")
        rows.append("".join("|%s    %s" % (p.edges[LEFT], p.edges[RIGHT]) for p in row) + "|")
        rows.append("".join("|   %s   " % p.edges[BOTTOM] for p in row) + "|")
        rows.append(LINE)
    return "\n".join(rows)


def main():
    with open(sys.argv[1]) as f:
        tiles = [tuple(e.strip() for e in line.split(",")) for line in f if line.strip()]

    puzzle = Puzzle(tiles)
    puzzle.solve()

    print("Input tiles:")
    for number, edges in enumerate(tiles, 1):
        print("%d. <%s>" % (number, ", ".join(edges)))
    print()
    if not puzzle.solutions:
        print("No solution found.")
    else:
        print("%d unique solutions found:" % len(puzzle.solutions))
        print("\n\n".join(draw(grid) for grid in puzzle.solutions))


if __name__ == "__main__":
    main()
