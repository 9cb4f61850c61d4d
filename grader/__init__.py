"""Grading harness for the Scramble Squares puzzle-solver assignment."""
