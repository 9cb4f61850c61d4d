"""Grading harness for the Scramble Squares puzzle-solver assignment."""

__version__ = "0.1.0"
