"""Grading harness for the Scramble Squares puzzle-solver assignment."""

from pathlib import Path

__version__ = "0.1.0"

# The grader package's own folder (in a clone, the repository is its parent), said once
# so that a module's place in the tree never decides what it finds.
PACKAGE = Path(__file__).resolve().parent
