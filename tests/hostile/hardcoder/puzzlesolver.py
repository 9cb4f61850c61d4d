"""A leaderboard cheat: a correct program (the test pastes its source in) that prints
a stored answer when its input is a puzzle it has learned (the timed cases the test
fills in: what a student who read the published figures could know), and solves
honestly otherwise. Timed on puzzles drawn afresh for the session, it does the honest
program's work: it can never rank above it."""

import sys

LEARNED = @LEARNED@  # {puzzle bytes: answer bytes}
HONEST = @HONEST@  # the correct program's source


def main() -> None:
    with open(sys.argv[1], "rb") as puzzle:
        answer = LEARNED.get(puzzle.read())
    if answer is not None:
        sys.stdout.buffer.write(answer)
        return
    exec(compile(HONEST, "puzzlesolver.py", "exec"), {"__name__": "__main__"})


main()
